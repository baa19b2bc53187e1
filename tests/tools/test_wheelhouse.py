"""tools/misc/wheelhouse.py: which wheels of a pip report an offline node
gets (pure ones), which it must already have (binary ones, torch), for the
target Python's markers. No network: the reports are made up."""
import zipfile

import pytest

from ..tool_runs import script_module


@pytest.fixture(scope='module')
def tool():
    return script_module('tools/misc/wheelhouse.py')


def item(name, version, tag, requires=(), requested=False):
    """A pip report entry whose wheel has the tag ``tag``."""
    wheel = f'{name.replace("-", "_")}-{version}-{tag}.whl'
    return {'metadata': {'name': name, 'version': version,
                         'requires_dist': list(requires)},
            'download_info': {'url': f'https://files.example/{wheel}',
                              'archive_info': {'hashes': {'sha256': '0'}}},
            'requested': requested}


PURE, UNIVERSAL = 'py3-none-any', 'py2.py3-none-any'
COMPILED = 'cp312-cp312-manylinux_2_28_x86_64'
REPORT = {'version': '1', 'install': [
    item('mmengine', '0.10.7', PURE, requested=True, requires=[
        'numpy', 'opencv-python>=3', 'rich', 'PyYAML',
        'regex; sys_platform == "win32"', 'pytest; extra == "tests"']),
    item('mmpretrain', '1.2.0', UNIVERSAL, requested=True, requires=[
        'numpy>=1.20', 'matplotlib', 'tomli; python_version < "3.12"',
        'fancy[speed]', 'torch>=2.0']),
    item('rich', '15.0.0', PURE, requires=['pygments<3,>=2.13']),
    item('Pygments', '2.21.0', PURE),
    item('tomli', '2.0.1', PURE),
    item('fancy', '1.0', PURE, requires=['speedlib; extra == "speed"',
                                         'docs; extra == "docs"']),
    item('speedlib', '0.1', PURE),
    item('numpy', '2.5.5', COMPILED),
    item('PyYAML', '6.0.3', COMPILED),
    # What compiled packages need is the node's install's business.
    item('opencv-python', '5.0.0.93', 'cp37-abi3-manylinux_2_28_x86_64',
         requires=['numpy>=2']),
    item('matplotlib', '3.11.2', COMPILED, requires=['cycler>=0.10']),
    item('cycler', '0.12.1', PURE),
    # Resolved here only to show that the node's own torch is not followed.
    item('torch', '2.13.0', COMPILED, requires=['sympy']),
    item('sympy', '1.14', PURE),
]}


def names(selection):
    return [i['metadata']['name'] for i in selection.pure]


def test_pure_wheels_follow_target_markers_and_extras(tool):
    selection = tool.select(REPORT, '3.12')
    assert names(selection) == ['fancy', 'mmengine', 'mmpretrain', 'Pygments',
                                'rich', 'speedlib']
    # Python 3.11 needs tomli (pip's own marker evaluation would follow the
    # Python running pip, not the target).
    assert 'tomli' in names(tool.select(REPORT, '3.11'))


def test_binary_ones_listed_with_the_pure_requirers_specs(tool):
    binary = tool.select(REPORT, '3.12').binary
    assert binary == {
        'numpy': (tool.SpecifierSet('>=1.20'), ['mmengine', 'mmpretrain'],
                  '2.5.5'),
        'opencv-python': (tool.SpecifierSet('>=3'), ['mmengine'],
                          '5.0.0.93'),
        'PyYAML': (tool.SpecifierSet(), ['mmengine'], '6.0.3'),
        'matplotlib': (tool.SpecifierSet(), ['mmpretrain'], '3.11.2'),
        'torch': (tool.SpecifierSet('>=2.0'), ['mmpretrain'], None),
    }
    lines = tool.binary_requirements_text(
        tool.select(REPORT, '3.12'), '3.12').splitlines()
    assert lines[0].startswith('# Compiled packages the Python 3.12 ')
    assert [line for line in lines if not line.startswith('#')] == [
        'matplotlib  # for mmpretrain; pip picked 3.11.2',
        'numpy>=1.20  # for mmengine, mmpretrain; pip picked 2.5.5',
        'opencv-python>=3  # for mmengine; pip picked 5.0.0.93',
        'PyYAML  # for mmengine; pip picked 6.0.3',
        "torch>=2.0  # for mmpretrain; the node's own",
    ]


def test_a_report_missing_a_target_requirement_is_refused(tool):
    report = {'install': [i for i in REPORT['install']
                          if i['metadata']['name'] != 'tomli']}
    assert 'tomli' not in names(tool.select(report, '3.12'))
    with pytest.raises(RuntimeError, match="mmpretrain needs 'tomli; "
                       'python_version < "3.12"\' on Python 3.11'):
        tool.select(report, '3.11')


def test_a_compiled_pin_is_refused(tool):
    report = {'install': [item('numpy', '2.5.5', COMPILED, requested=True)]}
    with pytest.raises(RuntimeError, match='numpy resolved to .*a compiled'):
        tool.select(report, '3.12')


@pytest.mark.parametrize('wheel, pure', [
    ('rich-15.0.0-py3-none-any.whl', True),
    ('mat4py-0.6.0-py2.py3-none-any.whl', True),
    ('numpy-2.5.5-cp312-cp312-manylinux_2_28_x86_64.whl', False),
    ('opencv_python-5.0.0.93-cp37-abi3-manylinux_2_28_x86_64.whl', False),
    ('ninja-1.11-py3-none-manylinux1_x86_64.whl', False),
])
def test_is_pure(tool, wheel, pure):
    assert tool.is_pure(wheel) is pure


def test_pins_come_from_version_check(tool):
    assert tool.PINS == ('mmengine==0.10.7', 'mmpretrain==1.2.0',
                         'mmcv-lite==2.1.0')


# The transfers resolved with the pretraining path: mmdet and ftfy (pure),
# regex asked for by name and the COCO API through mmdet (compiled,
# carried), scipy (compiled, the node's).
DOWNSTREAM_REPORT = {'version': '1', 'install': REPORT['install'] + [
    item('mmdet', '3.3.0', PURE, requested=True, requires=[
        'numpy', 'pycocotools', 'scipy', 'six']),
    item('ftfy', '6.3.1', PURE, requested=True, requires=['wcwidth']),
    item('regex', '2026.12.2', COMPILED, requested=True),
    item('pycocotools', '2.0.11', 'cp312-abi3-manylinux2014_x86_64',
         requires=['numpy', 'helper']),
    item('helper', '1.0', PURE),
    item('wcwidth', '0.9.5', 'cp310-abi3-manylinux2014_x86_64'),
    item('scipy', '1.18.1', COMPILED, requires=['numpy']),
    item('six', '1.17.0', UNIVERSAL),
]}


def test_carried_compiled_wheels_are_followed_as_pure_ones(tool):
    carried = ('pycocotools', 'regex', 'wcwidth')
    selection = tool.select(DOWNSTREAM_REPORT, '3.12', carried=carried)
    assert [i['metadata']['name'] for i in selection.compiled] == [
        'pycocotools', 'regex', 'wcwidth']
    assert {'helper', 'six', 'mmdet', 'ftfy'} <= set(names(selection))
    assert selection.binary['scipy'][1] == ['mmdet']
    assert selection.binary['numpy'][1] == ['mmdet', 'mmengine',
                                            'mmpretrain', 'pycocotools']
    # Not carried, a compiled pin is still refused.
    with pytest.raises(RuntimeError, match='regex resolved to .*a compiled'):
        tool.select(DOWNSTREAM_REPORT, '3.12', carried=('pycocotools', ))


def test_the_downstream_folder_holds_what_the_transfers_add(tool):
    base = tool.select(REPORT, '3.12')
    full = tool.select(DOWNSTREAM_REPORT, '3.12',
                       carried=tool.CARRIED_COMPILED)
    added = tool.downstream_selection(base, full)
    assert names(added) == ['ftfy', 'helper', 'mmdet', 'six']
    assert [i['metadata']['name'] for i in added.compiled] == [
        'pycocotools', 'regex', 'wcwidth']
    assert list(added.binary) == ['scipy']  # numpy: the pretraining's
    lines = tool.binary_requirements_text(added, '3.12').splitlines()
    assert lines[-1] == 'scipy  # for mmdet; pip picked 1.18.1'


def test_downstream_pins_are_make_install_downstreams_and_mlxtend(tool):
    assert tool.DOWNSTREAM_PINS == ('mmsegmentation==1.2.2', 'mmdet==3.3.0',
                                    'ftfy', 'regex', 'mlxtend==0.25.0')


def test_requires_python_of_a_wheel(tool, tmp_path):
    wheel = tmp_path / 'x-1.0-py3-none-any.whl'
    with zipfile.ZipFile(wheel, 'w') as z:
        z.writestr('x-1.0.dist-info/METADATA', 'Metadata-Version: 2.1\n'
                   'Name: x\nVersion: 1.0\nRequires-Python: >=3.11,<3.12\n')
    assert tool.requires_python(wheel) == '>=3.11,<3.12'


@pytest.mark.parametrize('argv, message', [
    (['--python', '3'], "argument --python: '3' is not a Python 3 version"),
    (['--python', '2.7'], "argument --python: '2.7' is not a Python 3"),
])
def test_bad_arguments_name_the_argument(tool, capsys, argv, message):
    with pytest.raises(SystemExit):
        tool.parse_args(argv)
    assert message in capsys.readouterr().err


def test_out_must_not_be_a_file(tool, tmp_path):
    path = tmp_path / 'file'
    path.write_text('')
    from randsac_mm.cli.errors import UserError
    with pytest.raises(UserError, match=f'^--out: {path} is a file; give a '
                       'folder$'):
        tool.parse_args(['--out', str(path)])
