#!/usr/bin/env python3
"""Checks the repository's Markdown: every relative link names a file that exists, and every
#anchor a heading that is there (GitHub's rule: lower case, punctuation dropped, spaces to
hyphens, a repeated heading numbered). Without arguments it also checks that the REST API's index,
docs/reference/api.md, names every operation of Sources/API/openapi.yaml and no other. Usage:
scripts/check-docs.py [FILE.md ...] (default: the README and every page under docs/). Exit status
1 on any broken link or operation, each one named."""
import collections
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LINK = re.compile(r'\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)')


def slug(heading):
    text = re.sub(r'<[^>]+>', '', heading).strip().lower()
    text = re.sub(r'[^\w\- ]', '', text)
    return text.replace(' ', '-')


def prose(path):
    """The file's lines outside code fences, with their numbers."""
    fence = False
    with open(path, encoding='utf-8') as f:
        for number, line in enumerate(f, 1):
            if line.lstrip().startswith('```'):
                fence = not fence
                continue
            if not fence:
                yield number, line.rstrip('\n')


def anchors(path):
    found, seen = set(), collections.Counter()
    for _, line in prose(path):
        m = re.match(r'^#{1,6} (.*)$', line)
        if m:
            s = slug(m.group(1))
            found.add(s if seen[s] == 0 else f'{s}-{seen[s]}')
            seen[s] += 1
    return found


def check(path, cache):
    problems = []
    for number, line in prose(path):
        # Inline code is not a link.
        for url in LINK.findall(re.sub(r'`[^`]*`', '', line)):
            if re.match(r'^[a-z][a-z0-9+.-]*:', url) or url.startswith('//'):
                continue
            base, _, fragment = url.partition('#')
            target = os.path.normpath(os.path.join(os.path.dirname(path), base)) if base else path
            where = f'{os.path.relpath(path, ROOT)}:{number}'
            if not os.path.exists(target):
                problems.append(f'{where}: {url}: no file {os.path.relpath(target, ROOT)}')
                continue
            if fragment and target.endswith('.md'):
                if target not in cache:
                    cache[target] = anchors(target)
                if fragment not in cache[target]:
                    problems.append(f'{where}: {url}: no heading #{fragment} in {os.path.relpath(target, ROOT)}')
    return problems


def operations_in_openapi(path):
    """`METHOD /path` for every operation of the OpenAPI document (read line by line: paths at two
    spaces' indent, their methods at four)."""
    found, current = set(), None
    with open(path, encoding='utf-8') as f:
        for line in f:
            if re.match(r'^\S', line):   # a top-level key: the paths (if these were they) are over
                current = None
            m = re.match(r'^  (/\S*):\s*$', line)
            if m:
                current = m.group(1)
                continue
            m = re.match(r'^    (get|put|post|delete|patch):\s*$', line)
            if m and current:
                found.add(f'{m.group(1).upper()} {current}')
    return found


def check_api_index():
    """The API index and the OpenAPI document list the same operations."""
    spec = os.path.join(ROOT, 'Sources', 'API', 'openapi.yaml')
    index = os.path.join(ROOT, 'docs', 'reference', 'api.md')
    documented = set()
    for _, line in prose(index):
        documented.update(re.findall(r'^\| `((?:GET|PUT|POST|DELETE|PATCH) /\S*)`', line))
    served = operations_in_openapi(spec)
    return ([f'docs/reference/api.md: {op} is in openapi.yaml but not in the index' for op in sorted(served - documented)]
            + [f'docs/reference/api.md: {op} is in the index but not in openapi.yaml' for op in sorted(documented - served)])


def main(files):
    whole = not files
    if not files:
        files = [os.path.join(ROOT, 'README.md')]
        for folder, _, names in os.walk(os.path.join(ROOT, 'docs')):
            files += [os.path.join(folder, n) for n in sorted(names) if n.endswith('.md')]
    cache, problems = {}, []
    for path in files:
        problems += check(os.path.abspath(path), cache)
    links = len(problems)
    if whole:
        problems += check_api_index()
    for problem in problems:
        print(problem)
    print(f'check-docs: {len(files)} pages, {links} broken link(s)' + (f', {len(problems) - links} API operation(s) not in step with openapi.yaml' if whole else ''))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
