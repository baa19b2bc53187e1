"""tools/misc/cuda_toolkit.py: which toolkit FORCE_CUDA=1 make
install-downstream compiles mmcv's CUDA ops with, on fake layouts (an nvcc
is a shell script answering --version and -dryrun as nvcc does)."""
import os

import pytest

from ..tool_runs import script_module


@pytest.fixture(scope='module')
def tool():
    return script_module('tools/misc/cuda_toolkit.py')


def fake_toolkit(home, release, cudart_major=None, headers=True):
    """``home/bin/nvcc`` of ``release`` ('13.0.88'); with ``cudart_major``,
    pip's ``lib/libcudart.so.<major>`` beside it; with ``headers``, the
    CUDA library headers torch's headers include."""
    major_minor = '.'.join(release.split('.')[:2])
    (home / 'bin').mkdir(parents=True)
    if headers:
        (home / 'include').mkdir()
        for name in ('cublas_v2.h', 'cublasLt.h', 'cusparse.h',
                     'cusolverDn.h'):
            (home / 'include' / name).write_text('')
    nvcc = home / 'bin' / 'nvcc'
    nvcc.write_text(
        '#!/bin/sh\n'
        'if [ "$1" = --version ]; then\n'
        f'  echo "Cuda compilation tools, release {major_minor}, '
        f'V{release}"\n'
        f'else echo "#$ TOP={home}/bin/.." >&2; fi\n')
    nvcc.chmod(0o755)
    if cudart_major:
        (home / 'lib').mkdir()
        (home / 'lib' / f'libcudart.so.{cudart_major}').write_bytes(b'')
    return home


def wrapper_on_path(tmp_path, home):
    """A system nvcc as Debian's and NVIDIA's packages put one on PATH: a
    script elsewhere that execs the toolkit's."""
    path = tmp_path / 'usr-local-bin'
    path.mkdir()
    wrapper = path / 'nvcc'
    wrapper.write_text(f'#!/bin/sh\nexec {home}/bin/nvcc "$@"\n')
    wrapper.chmod(0o755)
    return str(path)


def test_pip_s_wheels_are_found_and_linked_as_the_build_needs(tool,
                                                              tmp_path):
    site = tmp_path / 'site-packages'
    home = fake_toolkit(site / 'nvidia' / 'cu13', '13.0.88', cudart_major=13)
    found = tool.find_toolkit('13.0', str(site), {'PATH': ''})
    assert found == tool.Toolkit(str(home), '13.0.88',
                                 "pip's toolkit wheels")
    tool.link_pip_layout(found.home, 13)
    assert os.readlink(home / 'lib64') == 'lib'
    assert os.readlink(home / 'lib' / 'libcudart.so') == 'libcudart.so.13'
    tool.link_pip_layout(found.home, 13)   # again: nothing to do
    assert tool.exports(found).startswith(f'export CUDA_HOME={home}\n')


def test_a_system_nvcc_of_torch_s_major_is_used_where_it_lives(tool,
                                                               tmp_path):
    home = fake_toolkit(tmp_path / 'cuda-13.0', '13.0.48')
    site = tmp_path / 'site-packages'
    fake_toolkit(site / 'nvidia' / 'cu13', '13.0.88', cudart_major=13)
    found = tool.find_toolkit('13.0', str(site),
                              {'PATH': wrapper_on_path(tmp_path, home)})
    assert (found.home, found.version, found.source) == (
        str(home), '13.0.48', 'system nvcc')


def found_beside_pip_s(tool, tmp_path, home):
    """What torch 13.0's search finds with ``home``'s nvcc on PATH and
    pip's toolkit installed: (toolkit, the notes said, pip's home)."""
    site = tmp_path / 'site-packages'
    pip_home = fake_toolkit(site / 'nvidia' / 'cu13', '13.0.88',
                            cudart_major=13)
    notes = []
    found = tool.find_toolkit('13.0', str(site),
                              {'PATH': wrapper_on_path(tmp_path, home)},
                              note=notes.append)
    return found, notes, pip_home


def test_a_system_nvcc_of_another_major_is_passed_over_for_pip_s(tool,
                                                                 tmp_path):
    home = fake_toolkit(tmp_path / 'cuda-12.4', '12.4.131')
    found, notes, pip_home = found_beside_pip_s(tool, tmp_path, home)
    assert found.home == str(pip_home)
    assert len(notes) == 1 and 'nvcc 12.4.131' in notes[0]
    # Neither: nothing found, and the wheels to install are torch's own.
    assert tool.find_toolkit('13.0', str(tmp_path / 'empty'), {
        'PATH': str(tmp_path / 'usr-local-bin')}, note=notes.append) is None
    assert tool.toolkit_requirement('13.0', '13.0.3.0') == \
        'cuda-toolkit[nvcc,cccl,crt]==13.0.3.0'
    assert tool.toolkit_requirement('13.0', None) == \
        'cuda-toolkit[nvcc,cccl,crt]==13.0.*'


def test_a_toolkit_of_nvcc_alone_is_passed_over_or_refused(tool, tmp_path):
    """An install of nvcc without the CUDA libraries' headers, which
    torch's own CUDA headers include: mmcv's first CUDA source would fail
    on cusparse.h."""
    home = fake_toolkit(tmp_path / 'cuda-13.0', '13.0.88', headers=False)
    found, notes, pip_home = found_beside_pip_s(tool, tmp_path, home)
    assert found.home == str(pip_home)
    assert notes == [
        f'passing over the system nvcc 13.0.88 ({tmp_path}/usr-local-bin/'
        f'nvcc): {home}/include lacks cublas_v2.h, cublasLt.h, cusparse.h, '
        f"cusolverDn.h, which torch's CUDA headers include"]
    with pytest.raises(tool.ToolkitError, match=(
            rf'^CUDA_HOME={home} lacks cublas_v2.h, .* unset CUDA_HOME')):
        tool.find_toolkit('13.0', str(tmp_path / 'site-packages'),
                          {'CUDA_HOME': str(home)})


def test_a_cuda_home_of_another_major_is_refused_in_one_line(tool,
                                                            tmp_path):
    home = fake_toolkit(tmp_path / 'cuda-12.4', '12.4.131')
    with pytest.raises(tool.ToolkitError) as e:
        tool.find_toolkit('13.0', str(tmp_path), {'CUDA_HOME': str(home)})
    message = str(e.value)
    assert '\n' not in message
    assert f'CUDA_HOME={home} has nvcc 12.4.131' in message
    assert 'CUDA 13.0' in message
    with pytest.raises(tool.ToolkitError, match='no bin/nvcc'):
        tool.find_toolkit('13.0', str(tmp_path),
                          {'CUDA_HOME': str(tmp_path / 'nowhere')})


def test_nvvm_is_matched_to_nvcc_s_release(tool):
    """cuda-toolkit 13.0.2 (torch 2.11's) leaves nvvm unpinned: pip took
    13.5.37, whose PTX (ISA 9.5) nvcc 13.0's ptxas refused."""
    assert tool.nvvm_requirement('13.0.88', '13.5.37') == \
        'nvidia-nvvm==13.0.88'
    assert tool.nvvm_requirement('13.0.88', '13.0.88') is None
    assert tool.nvvm_requirement('13.0.88', '13.0.48') is None
    assert tool.nvvm_requirement(None, '13.5.37') is None


def test_the_arches_are_asked_for_where_no_gpu_is_visible(tool):
    with pytest.raises(tool.ToolkitError, match='TORCH_CUDA_ARCH_LIST=9.0'):
        tool.arch_list({}, [])
    assert tool.arch_list({'TORCH_CUDA_ARCH_LIST': '8.0;9.0'}, []) == \
        '8.0;9.0'
    assert tool.arch_list({}, [(9, 0), (8, 0), (9, 0)]) == '8.0;9.0'


def test_cuda_kernels_are_read_from_the_library_s_symbols(tool, tmp_path):
    library = tmp_path / '_ext.so'
    library.write_bytes(
        b'\x00_Z34ROIAlignForwardCUDAKernelLauncherN2at6TensorE\x00'
        b'_Z21NMSCUDAKernelLauncherN2at6TensorE\x00nms_cpu\x00'
        b'_Z34ROIAlignForwardCUDAKernelLauncherN2at6TensorES_\x00')
    assert tool.cuda_launchers(str(library)) == [
        'NMSCUDAKernelLauncher', 'ROIAlignForwardCUDAKernelLauncher']
    library.write_bytes(b'nms_cpu\x00roi_align_forward_cpu\x00')
    assert tool.cuda_launchers(str(library)) == []
