/* SPDX-License-Identifier: MIT */
/* Prints every operation and setting name of the op tables, one a line,
 * so that tests can check the man page and --help against them.  With
 * --args, each operation's name and the argument of its first test
 * fragment (the op as typically used; nothing where it takes none), tab
 * separated, so that tests can run every op without a table of their own. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"

/* The argument `name` takes in `fragment` ("-blur 2": "2"; "-laplacian=4":
 * "4"), into buf; "" where there is none. */
static void fragment_arg(const char *fragment, const char *name, char *buf, size_t size)
{
    char flag[64];
    snprintf(flag, sizeof flag, "-%s", name);
    const char *p = fragment;
    size_t n = strlen(flag);
    buf[0] = 0;
    while ((p = strstr(p, flag)) && ((p != fragment && p[-1] != ' ') || (p[n] && p[n] != ' ' && p[n] != '=')))
        p += n;
    if (!p || !p[n])
        return;
    p += n + 1;
    n = strcspn(p, " ");
    snprintf(buf, size, "%.*s", (int)n, p);
}

int main(int argc, char **argv)
{
    const int args = argc > 1 && !strcmp(argv[1], "--args");
    for (int i = 0; i < gf_nops; i++) {
        char arg[256] = "";
        if (args && gf_ops[i]->tests && gf_ops[i]->tests[0])
            fragment_arg(gf_ops[i]->tests[0], gf_ops[i]->name, arg, sizeof arg);
        printf(args ? "%s\t%s\n" : "%s\n", gf_ops[i]->name, arg);
    }
    if (args)
        return 0;
    for (int i = 0; i < gf_nsettings; i++)
        printf("%s\n", gf_settings_table[i].name);
    const gf_op_setting *os[GF_OP_SETTINGS_MAX];
    const int n = gf_op_settings(os, GF_OP_SETTINGS_MAX);
    for (int k = 0; k < n; k++)
        printf("%s\n", os[k]->name);
    return 0;
}
