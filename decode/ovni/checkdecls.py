#!/usr/bin/env python3
"""Check describe_table.go against the event tables of ovni's releases.

Usage: python3 checkdecls.py OVNI_GIT_DIR [TAG ...]
OVNI_GIT_DIR is a clone of github.com/bsc-pm/ovni (bare or not) with its
release tags; TAGs default to 1.6.0 .. 1.14.0. For each release it reads
model_evlist of every model (src/emu/*/setup.c: { "SIG", "DESC" } entries
and the PAIR_E/PAIR_B/PAIR_S macros of ev_spec.h) and prints each
declaration the Go table lacks or holds in excess for that release.
Exits 1 when any differ.
"""
import os
import re
import subprocess
import sys

STR = r'"((?:[^"\\]|\\.)*)"'
PAIRS = {'E': ('enters ', 'leaves '), 'B': ('begins ', 'ceases '), 'S': ('starts ', 'stops  ')}


def git(repo, *args, check=True):
    return subprocess.run(['git', '-C', repo, *args], capture_output=True, text=True, check=check).stdout


def unescape(s):
    return s.encode().decode('unicode_escape')


def release_decls(repo, tag):
    out = set()
    files = git(repo, 'grep', '-l', 'ev_decl model_evlist', tag, '--', 'src/emu', check=False).split()
    if not files:
        sys.exit(f'{tag}: no event tables (ovnidump describes events from 1.6.0 on)')
    for f in files:
        body = re.search(r'ev_decl model_evlist\[\]\s*=\s*\{(.*?)\n\};', git(repo, 'show', f), re.S).group(1)
        body = re.sub(r'/\*.*?\*/', '', body, flags=re.S)
        for line in body.split('\n'):
            line = line.strip()
            if not line or line.startswith('//') or line.startswith('{ NULL'):
                continue
            m = re.match(r'PAIR_([EBS])\(\s*' + STR + r'\s*,\s*' + STR + r'\s*,\s*' + STR + r'\s*\)', line)
            if m:
                kind, a, b, desc = m.groups()
                out.add((unescape(a), PAIRS[kind][0] + unescape(desc)))
                out.add((unescape(b), PAIRS[kind][1] + unescape(desc)))
                continue
            m = re.match(r'\{\s*' + STR + r'\s*,\s*' + STR + r'\s*\},?$', line)
            if not m:
                sys.exit(f'{f}: cannot read {line!r}')
            out.add((unescape(m.group(1)), unescape(m.group(2))))
    return out


def go_decls(minor):
    src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'describe_table.go')).read()
    out = set()
    for m in re.finditer(r'\{' + STR + r', ' + STR + r', (\d+), (\d+)\}', src):
        if int(m.group(3)) <= minor <= int(m.group(4)):
            out.add((m.group(1).replace('\\"', '"'), m.group(2).replace('\\"', '"')))
    return out


def main():
    repo = sys.argv[1]
    tags = sys.argv[2:] or [f'1.{n}.0' for n in range(6, 15)]
    bad = 0
    for tag in tags:
        want, have = release_decls(repo, tag), go_decls(int(tag.split('.')[1]))
        for sig, desc in sorted(want - have):
            print(f'{tag}: missing {sig} "{desc}"')
        for sig, desc in sorted(have - want):
            print(f'{tag}: in excess {sig} "{desc}"')
        bad += len(want ^ have)
        print(f'{tag}: {len(want)} declarations, {len(want ^ have)} differences')
    sys.exit(1 if bad else 0)


main()
