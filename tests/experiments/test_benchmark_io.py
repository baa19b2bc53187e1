"""experiments.benchmark_io.code_commit: the commit a benchmark records,
from git in a checkout, from RANDSAC_COMMIT in a copy of the tree without
git (an offline GPU node's)."""
import subprocess

import pytest

from experiments import benchmark_io
from experiments.benchmark_io import COMMIT_VARIABLE, code_commit
from randsac_mm.cli.errors import UserError

from ..conftest import REPO_ROOT


def git_head():
    return subprocess.run(['git', 'rev-parse', '--short', 'HEAD'],
                          cwd=REPO_ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()


def test_in_a_checkout_git_names_the_commit(monkeypatch):
    monkeypatch.delenv(COMMIT_VARIABLE, raising=False)
    found = code_commit()
    assert found in (git_head(), git_head() + '+dirty')


@pytest.mark.parametrize('length', ['short', 'full'])
def test_the_variable_agreeing_with_git_is_accepted(monkeypatch, length):
    head = git_head()
    given = head if length == 'short' else subprocess.run(
        ['git', 'rev-parse', 'HEAD'], cwd=REPO_ROOT, capture_output=True,
        text=True, check=True).stdout.strip()
    monkeypatch.setenv(COMMIT_VARIABLE, given)
    assert code_commit().split('+')[0] == head


def test_the_variable_naming_another_commit_than_git_is_refused(monkeypatch):
    other = '0000000' if not git_head().startswith('0000000') else '1111111'
    monkeypatch.setenv(COMMIT_VARIABLE, other)
    with pytest.raises(UserError, match=f'{COMMIT_VARIABLE}={other}, but '
                       'git says'):
        code_commit()


@pytest.mark.parametrize('value', ['', 'HEAD', 'abc', '0804f77 ',
                                   '0804f77+changed'])
def test_a_variable_that_is_no_hash_is_refused(monkeypatch, value):
    monkeypatch.setenv(COMMIT_VARIABLE, value)
    with pytest.raises(UserError, match=f'{COMMIT_VARIABLE}=.*7 to 40 hex'):
        code_commit()


def test_without_git_the_variable_names_the_commit(monkeypatch, tmp_path):
    # A copy of the tree that git does not know: no .git above tmp_path.
    monkeypatch.setattr(benchmark_io, 'REPO_ROOT', str(tmp_path))
    monkeypatch.setenv('GIT_CEILING_DIRECTORIES', str(tmp_path.parent))
    monkeypatch.setenv(COMMIT_VARIABLE, '0804f77+dirty')
    assert code_commit() == '0804f77+dirty'
    monkeypatch.delenv(COMMIT_VARIABLE)
    assert code_commit() is None


def test_without_a_git_program_the_variable_names_the_commit(monkeypatch):
    monkeypatch.setenv('PATH', '')  # no git to run
    monkeypatch.setenv(COMMIT_VARIABLE, 'abcdef1')
    assert code_commit() == 'abcdef1'


@pytest.mark.parametrize('env, expected', [
    ('float32', {}), ('bfloat16', dict(precision='bfloat16'))])
def test_a_cpu_records_its_precision_unless_float32(monkeypatch, env,
                                                    expected):
    from randsac_mm.precision import CPU_PRECISION_ENV
    monkeypatch.setenv(CPU_PRECISION_ENV, env)
    assert benchmark_io.cpu_precision_setting() == expected
