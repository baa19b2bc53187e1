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
         'requirements/', '.ci/', 'experiments/')
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


@pytest.mark.parametrize('page', sorted(glob(osp.join(
    REPO_ROOT, 'docs', '**', '*.md'), recursive=True)),
    ids=lambda p: osp.relpath(p, REPO_ROOT))
def test_a_doc_page_is_at_most_400_lines(page):
    # A page longer than this is read as a diary, not as a reference.
    assert len(open(page).read().splitlines()) <= 400


def test_the_checker_sees_a_missing_path():
    text = 'see `configs/nope/missing.py` and `tools/{train,nope}.py`'
    paths = named_paths(text)
    assert paths == ['configs/nope/missing.py', 'tools/nope.py',
                     'tools/train.py']
    assert [p for p in paths if not glob(osp.join(REPO_ROOT, p))] == [
        'configs/nope/missing.py', 'tools/nope.py']


# A measured figure: a decimal (1.565, +8.30, -0.01, 49.6), a number with
# thousands separators (1,610) or a percentage (22%). Versions (2.13.0) and
# dates are not figures.
FIGURE = re.compile(r'(?<![\w.])[+-]?\d+(?:,\d{3})+(?![\d.])|'
                    r'(?<![\w.])[+-]?\d+\.\d+(?![\d.])|(?<![\w.])\d+%')


def readme_sections(text):
    """The README's sections (split at ``## `` headings): (text, the docs
    its links point to)."""
    sections = re.split(r'^## ', text, flags=re.M)
    found = []
    for section in sections:
        links = [osp.normpath(osp.join(REPO_ROOT, link))
                 for link in LINK.findall(section)
                 if not link.startswith('http') and
                 link.endswith(('.md', '.json'))]
        found.append((section, links))
    return found


def figures(text):
    """The figures of ``text``, signs dropped (a source may write a gap as
    +0.71 or 0.71)."""
    return {f.lstrip('+-') for f in FIGURE.findall(text)}


def decimals(figure):
    return len(figure.split('.')[1]) if '.' in figure else 0


def value(figure):
    return float(figure.rstrip('%').replace(',', ''))


def sourced(figure, have):
    """Whether a source holds ``figure``, or a more precise figure that
    rounds to it (the README's +4.2 of the study's +4.18)."""
    if figure in have:
        return True
    places = decimals(figure)
    return any(decimals(h) > places and h.endswith('%') == figure.endswith(
        '%') and round(value(h), places) == value(figure) for h in have)


def unsourced_figures(text):
    """Figures of the README that none of the docs its section links to
    holds: each figure lives in one doc, and the README repeats it."""
    missing = []
    for section, links in readme_sections(text):
        sources = ''.join(open(p).read() for p in links if osp.isfile(p))
        have = figures(sources)
        missing += sorted(f for f in figures(section)
                          if not sourced(f, have))
    return missing


def test_every_figure_of_the_readme_is_its_source_doc_s():
    assert unsourced_figures(open(PAGES[0]).read()) == []


def test_the_figure_check_sees_a_figure_its_source_lacks(tmp_path):
    source = tmp_path / 'source.md'
    source.write_text('trains at 1,610 images/s, 22% MFU, loss 0.911, '
                      'gap +4.18')
    text = (f'## Results\nIt trains at 1,610 images/s and 23% MFU '
            f'([perf]({source})), loss 0.911, margin +8.30, gap +4.2, '
            'not +4.3, torch 2.13.0.')
    assert unsourced_figures(text) == ['23%', '4.3', '8.30']


# Where the code and the docs send a reader to a section: a link with an
# anchor ([x](page.md#anchor)) or a page and a quoted heading
# (docs/page.md, "Heading"), the heading as written or its part before a
# colon. Wrapped docstrings and comments are joined before matching.
SECTION_LINK = re.compile(r'\]\(([\w./-]+\.md)#([\w-]+)\)')
SECTION_NAME = re.compile(r'(docs/[\w./-]+\.md),\s*"([^"\'\s][^"]*)"')
REFERRING = sorted(
    p for pattern in ('README.md', 'docs/*.md', 'randsac_mm/**/*.py',
                      'tools/**/*', 'experiments/**/*.py', 'configs/**/*.py',
                      'tests/**/*.py', 'Makefile')
    for p in glob(osp.join(REPO_ROOT, pattern), recursive=True)
    if osp.isfile(p) and not p.endswith('test_docs.py'))  # (examples)


def headings(page):
    """The headings of a markdown page, as written."""
    return [line.lstrip('#').strip() for line in open(page)
            if re.match(r'#{1,6} ', line)]


def anchor(heading):
    """GitHub's anchor of a heading: lower case, punctuation but hyphens
    dropped, spaces to hyphens."""
    text = re.sub(r'[^\w\- ]', '', heading.lower().replace('`', ''))
    return text.replace(' ', '-')


def joined(text):
    """Comment and docstring line breaks (and their indentation, ``#``)
    turned into single spaces."""
    return re.sub(r'\s*\n\s*(?:#\s*)?', ' ', text)


def section_references(path):
    """(page, heading or anchor, is_anchor) that ``path`` points to."""
    text = joined(open(path, errors='replace').read())
    folder = osp.dirname(path)
    found = [(osp.normpath(osp.join(folder, page)), ref, True)
             for page, ref in SECTION_LINK.findall(text)]
    found += [(osp.join(REPO_ROOT, page), ref, False)
              for page, ref in SECTION_NAME.findall(text)]
    return found


def missing_sections(path):
    missing = []
    for page, ref, is_anchor in section_references(path):
        if not osp.isfile(page):
            missing.append(f'{ref} in missing page {page}')
            continue
        names = headings(page)
        known = [anchor(h) for h in names] if is_anchor else \
            names + [h.split(':')[0] for h in names]
        if ref not in known:
            missing.append(f'{osp.relpath(page, REPO_ROOT)}: {ref!r}')
    return missing


@pytest.mark.parametrize('path', REFERRING,
                         ids=lambda p: osp.relpath(p, REPO_ROOT))
def test_referenced_sections_exist(path):
    assert not missing_sections(path)


def test_the_section_check_sees_a_missing_section(tmp_path):
    page = tmp_path / 'page.md'
    page.write_text('# Page\n\n## Data loading: workers per GPU\n')
    source = tmp_path / 'module.py'
    source.write_text(
        '"""See [it](page.md#data-loading-workers-per-gpu), '
        '[that](page.md#gone)\nand (docs/install.md,\n    "Offline GPU '
        'node"), (docs/install.md, "Nowhere")."""\n')
    assert missing_sections(str(source)) == [
        f'{osp.relpath(str(page), REPO_ROOT)}: ' + repr('gone'),
        'docs/install.md: ' + repr('Nowhere')]
