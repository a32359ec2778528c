#!/bin/sh
# Prints the commands of the EXAMPLES section of a man page as a shell script.
sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$1" | sed -n 's/^\.B //p' | sed 's/\\-/-/g'
