#!/usr/bin/env python3
"""Runs one cmocka program with TAP output for meson (protocol 'tap'), case by case.

cmocka 1.1.5 (Debian 12) writes a skipped case as 'not ok N # SKIP', which TAP and meson
read as a failure, and a case's own output to stdout (print_message) is not TAP, nor always a whole line: this passes the program's
TAP through, writes a skip as 'ok N # SKIP', and turns every other line into a comment.
PMC_TEST_WRAPPER (the valgrind test setup) goes before the program. The program's arguments (a case glob, tests/test_main.h) and exit status pass through.
"""
import os
import re
import shlex
import subprocess
import sys

TAP = re.compile(r'^(ok|not ok)\b|^1\.\.\d+|^#|^Bail out!')
# A case's result after its own output that did not end its line (print_message).
GLUED = re.compile(r'^(.*?)((?:not )?ok \d+ - \S+.*)$')
SKIP = re.compile(r'^not ok (\d+)(.*# SKIP.*)$')


def main():
    if len(sys.argv) < 2:
        print('usage: cmocka_tap.py PROGRAM [CASE-GLOB]', file=sys.stderr)
        return 2
    env = dict(os.environ, CMOCKA_MESSAGE_OUTPUT='tap')
    wrapper = shlex.split(os.environ.get('PMC_TEST_WRAPPER', ''))
    with subprocess.Popen(wrapper + sys.argv[1:], env=env, stdout=subprocess.PIPE, text=True,
                          errors='replace') as proc:
        for line in proc.stdout:
            line = line.rstrip('\n')
            glued = GLUED.match(line)
            if glued and glued.group(1) and not TAP.match(line):
                print('# ' + glued.group(1))
                line = glued.group(2)
            skip = SKIP.match(line)
            if skip:
                line = f'ok {skip.group(1)}{skip.group(2)}'
            elif not TAP.match(line):
                line = '# ' + line
            print(line, flush=True)
    return proc.returncode


if __name__ == '__main__':
    sys.exit(main())
