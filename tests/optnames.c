/* SPDX-License-Identifier: MIT */
/* Prints every operation and setting name of the op tables, one a line,
 * so that tests can check the man page and --help against them. */
#include "config.h"

#include <stdio.h>

#include "cli.h"

int main(void)
{
    for (int i = 0; i < gf_nops; i++)
        printf("%s\n", gf_ops[i].name);
    for (int i = 0; i < gf_nsettings; i++)
        printf("%s\n", gf_settings_table[i].name);
    return 0;
}
