"""The README and docs name only what exists: every repository path in
backticks or code blocks, every relative link, every `make` target."""
import itertools
import os.path as osp
import re
from glob import glob

import pytest

from .conftest import REPO_ROOT

PAGES = [osp.join(REPO_ROOT, 'README.md')] + sorted(
    glob(osp.join(REPO_ROOT, 'docs', '*.md')))
# The repository's top-level folders: a token starting with one of them is
# a path the reader is meant to find.
ROOTS = ('configs/', 'tools/', 'randsac_mm/', 'tests/', 'docs/',
         'requirements/', '.ci/')
PATH = re.compile(r'(?<![\w./-])((?:%s)[\w./{},*-]*)' % '|'.join(
    re.escape(r) for r in ROOTS))
LINK = re.compile(r'\]\(([^)#\s]+)(?:#[^)]*)?\)')
MAKE = re.compile(r'\bmake ([a-z][\w-]*)')


def code_spans(text):
    """Inline code and fenced blocks: where paths and commands are."""
    fenced = re.findall(r'```.*?```', text, flags=re.S)
    inline = re.findall(r'`([^`\n]+)`', re.sub(r'```.*?```', '', text,
                                                flags=re.S))
    return fenced + inline


def expand(path):
    """'a/{b,c}/d' -> ['a/b/d', 'a/c/d']."""
    parts = re.split(r'\{([^{}]*)\}', path)
    choices = [[p] if i % 2 == 0 else p.split(',')
               for i, p in enumerate(parts)]
    return [''.join(c) for c in itertools.product(*choices)]


def named_paths(text):
    found = set()
    for span in code_spans(text):
        for match in PATH.findall(span):
            path = match.rstrip('.,:;')
            if '...' in path or '<' in path:
                continue
            found.update(expand(path))
    return sorted(found)


def make_targets():
    with open(osp.join(REPO_ROOT, 'Makefile')) as f:
        return set(re.findall(r'^([a-z][\w-]*):', f.read(), flags=re.M))


@pytest.mark.parametrize('page', PAGES,
                         ids=lambda p: osp.relpath(p, REPO_ROOT))
def test_named_paths_exist(page):
    text = open(page).read()
    missing = [p for p in named_paths(text)
               if not glob(osp.join(REPO_ROOT, p))]
    assert not missing, missing


@pytest.mark.parametrize('page', PAGES,
                         ids=lambda p: osp.relpath(p, REPO_ROOT))
def test_relative_links_resolve(page):
    text = open(page).read()
    folder = osp.dirname(page)
    missing = [link for link in LINK.findall(text)
               if '://' not in link and not link.startswith('mailto:')
               and not osp.exists(osp.join(folder, link))]
    assert not missing, missing


@pytest.mark.parametrize('page', PAGES,
                         ids=lambda p: osp.relpath(p, REPO_ROOT))
def test_make_targets_exist(page):
    targets = make_targets()
    named = {t for span in code_spans(open(page).read())
             for t in MAKE.findall(span)}
    assert named <= targets, named - targets


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = open(PAGES[0]).read().splitlines()
    assert len(lines) <= 200, len(lines)
    commands = [line.split('#')[0].strip() for line in lines[:8]
                if line.startswith('make ')]
    assert commands == ['make demo', 'make test']


def test_the_checker_sees_a_missing_path():
    text = 'see `configs/nope/missing.py` and `tools/{train,nope}.py`'
    paths = named_paths(text)
    assert paths == ['configs/nope/missing.py', 'tools/nope.py',
                     'tools/train.py']
    assert [p for p in paths if not glob(osp.join(REPO_ROOT, p))] == [
        'configs/nope/missing.py', 'tools/nope.py']
