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


# What a reader reads first is short: README plus docs/ (issue 104's cap).
MAX_WORDS = 20000
MAX_PAGE_LINES = 300


def test_the_docs_are_short_enough_to_read():
    words = sum(len(open(page).read().split()) for page in PAGES)
    assert words <= MAX_WORDS, words
    long = {osp.relpath(p, REPO_ROOT): n for p in PAGES
            if (n := len(open(p).read().splitlines())) > MAX_PAGE_LINES}
    assert long == {}


# How our own measurements were scheduled, or what we aim for, is not a
# user's business: words that only such text uses.
SCHEDULING = re.compile(r'\blent\b|\bborrowed\b|device (?:time|minutes)|'
                        r'\bthe goal\b|\bour goal\b|\bwe aim\b|\baim(?:s|ed)? '
                        r'(?:at|for)\b|MiB a command|\bthe next visit\b|'
                        r'\bwindow [1-9]\b', re.I)


@pytest.mark.parametrize('page', PAGES,
                         ids=lambda p: osp.relpath(p, REPO_ROOT))
def test_no_page_speaks_of_how_our_work_was_scheduled(page):
    assert SCHEDULING.findall(open(page).read()) == []


# The committed reports whose gaps carry a p-value: the small-scale
# studies' orderings and the transfer study's comparisons.
STUDY_REPORTS = sorted(glob(osp.join(REPO_ROOT, 'docs', 'benchmarks',
                                     '**', 'study.json'), recursive=True)) + \
    [osp.join(REPO_ROOT, 'docs', 'benchmarks', 'small_scale_study.json')]
TRANSFER_REPORTS = [osp.join(REPO_ROOT, 'docs', 'benchmarks', name) for name
                    in ('transfer_curve.json', 'transfer_curve_float32.json')]


def reported_gaps():
    """Every gap of the committed reports: dict(gap, se, p, p_holm,
    verdict, readout, final, where), where ``gap`` > 0 is the paper's
    direction and ``final`` says whether it is at the study's length."""
    import json
    found = []
    for path in STUDY_REPORTS:
        with open(path) as f:
            report = json.load(f)
        final = report['settings']['eval_epochs'][-1] if \
            report['settings'].get('eval_epochs') else None
        for ordering in report['orderings']:
            for readout, r in ordering['readouts'].items():
                last = max(p['epoch'] for p in r['by_epoch'])
                for point in r['by_epoch']:
                    at_final = point['epoch'] == (final or last)
                    found.append(dict(
                        point, readout=readout, final=at_final,
                        verdict=r['verdict'] if at_final else 'exploratory',
                        where=f"{osp.relpath(path, REPO_ROOT)} "
                        f"{ordering['worse']} < {ordering['better']} "
                        f"{readout} {point['epoch']}"))
    for path in TRANSFER_REPORTS:
        with open(path) as f:
            report = json.load(f)
        for point in report['points']:
            gap = point['gain_over_random']
            if gap is not None:
                found.append(dict(gap, readout=point['metric'], final=True,
                                  verdict=point['verdict'] or 'exploratory',
                                  where=f"{osp.relpath(path, REPO_ROOT)} "
                                  f"{point['init']} {point['epochs']}"))
        for point in report['randsac_vs_mae']:
            found.append(dict(point, readout=point['metric'], final=True,
                              where=f"{osp.relpath(path, REPO_ROOT)} MAE "
                              f"{point['init']} {point['epochs']}"))
    return found


def gap_text(gap):
    """A gap as the docs write it: '+0.41 ± 0.38'."""
    return f"{gap['gap']:+.2f} ± {gap['se']:.2f}"


def decided(verdict):
    """Whether a report's verdict decides its gap (the rule's words:
    'holds', 'reversed', 'above random init', ...; not 'undecided ...',
    'exploratory' or too few seeds)."""
    return not verdict.startswith(('undecided', 'exploratory')) and \
        'no verdict' not in verdict


def test_every_result_against_the_paper_is_in_the_readme():
    """A gap of any committed report against the paper with p < 0.05
    before correction, in any readout at any length, is listed."""
    readme = open(PAGES[0]).read()
    against = [g for g in reported_gaps()
               if g['p'] is not None and g['p'] < 0.05 and g['gap'] < 0]
    assert len(against) >= 5
    missing = [g['where'] for g in against if gap_text(g) not in readme]
    assert missing == []


def readme_result_rows():
    """The rows of the README's results table: {gap text: verdict}."""
    section = open(PAGES[0]).read().split('\n## Results of this code\n')[1]
    rows = {}
    for line in section.split('\n\n**')[0].splitlines():
        cells = [c.strip() for c in line.strip('|').split('|')]
        match = re.fullmatch(r'([+-]\d+\.\d\d ± \d+\.\d\d)', cells[3]) \
            if len(cells) == 7 else None
        if match:
            rows[match.group(1)] = cells[6]
    return rows


def test_the_readme_s_results_are_the_linear_probe_with_their_verdicts():
    """Every classification row shows the linear probe at its study's full
    length, and says decided exactly where its report decides it."""
    rows = readme_result_rows()
    assert len(rows) >= 12
    gaps = reported_gaps()
    for text, verdict in rows.items():
        matches = [g for g in gaps if gap_text(g) == text and g['final']]
        assert matches, text
        classification = [g for g in matches if g['readout'] in
                          ('linear', 'knn', 'attentive')]
        assert all(g['readout'] == 'linear' for g in classification), text
        report = matches[0]['verdict']
        assert verdict.startswith('decided') == decided(report), \
            (text, verdict, report)


def test_no_page_calls_decided_a_gap_its_report_leaves_undecided():
    """A line that shows a reported gap and says it is decided (not
    undecided) shows one its report decides."""
    undecided = {gap_text(g) for g in reported_gaps()
                 if not decided(g['verdict'])}
    wrong = []
    for page in PAGES:
        for line in open(page):
            said = re.sub(r'\bundecided\b', '', line)
            if not re.search(r'\bdecided\b', said):
                continue
            shown = set(re.findall(r'[+-]\d+\.\d\d ± \d+\.\d\d', line))
            # A decided gap and an undecided one may share a line only
            # where the line names both (a further look beside its gap).
            if shown and shown <= undecided:
                wrong.append(f'{osp.relpath(page, REPO_ROOT)}: {line.strip()}')
    assert wrong == []
