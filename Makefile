# Two entry points for a fresh machine: `make demo` and `make test`.
# Both install into .venv first when needed.
#
#   make install             pretraining, probes, demo: torch and mmcv-lite
#                            (no compiled op; the time of the downloads)
#   make install-downstream  + mmcv 2.1.0 with its compiled ops (a wheel if
#                            pip finds one, else a 10 to 35 minute compile
#                            on 2 cores), mmsegmentation, mmdet and the
#                            test tools
#   make test                install-downstream, lint, the whole suite
#   make test-quick          the suite without the heavy tests (no tool run
#                            in a process of its own, no training loop, no
#                            compilation): the inner loop, about 2 minutes
#   make wheelhouse          wheelhouse/py3.11, wheelhouse/py3.12: the pure-
#                            Python wheels of the pretraining path, for a GPU
#                            node without network (docs/install.md)
#   make wheelhouse-downstream  wheelhouse/py<X.Y>-downstream: what mmseg
#                            and mmdet add, for the node's Python
#                            (NODE_PYTHON): the transfers
#   make node-mmcv           wheelhouse/mmcv-cuda/py<X.Y>-torch<V>: mmcv
#                            2.1.0 with its CUDA ops for a GPU node's Python
#                            and torch (NODE_PYTHON, NODE_TORCH, NODE_ARCH),
#                            compiled here in .venv-node (about 30 minutes
#                            on 2 cores), for the node to install offline
#   make fashion-mnist       data/fashion-mnist: Fashion-MNIST's four IDX
#                            files from Debian's dataset-fashion-mnist
#                            package (about 30 MB; apt-get download, no
#                            root), to carry to a GPU node without network
#                            (docs/paper_scale.md)
#   make gpu-window          wheelhouse and fashion-mnist, then what to copy
#                            to a GPU node without network and the one
#                            command it runs (tools/misc/gpu_window.sh)
#
# Variables a user may set:
#   PYTHON=python3.11   interpreter that creates .venv
#   FORCE_CUDA=1        mmcv with its CUDA ops too (GPU clusters): nvcc of
#                       torch's CUDA, pip's if no system one matches
#   TORCH_CUDA_ARCH_LIST  with FORCE_CUDA=1: the arches to build (needed
#                       where no GPU is visible), e.g. 9.0
#   NODE_PYTHON=python3.12, NODE_TORCH=2.11.0, NODE_ARCH=9.0
#                       make node-mmcv: the GPU node's Python, torch and
#                       GPU arch (defaults: an H100 or H200 node)
#   TEST_WORKERS=N      pytest processes of make test (default: the cores,
#                       at most 4; each worker holds about 2.5 GB)

PYTHON ?= python3
FORCE_CUDA ?= 0
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.randsac-installed
DOWNSTREAM_STAMP := $(VENV)/.randsac-downstream
TEST_WORKERS ?= $(shell n=$$(nproc 2>/dev/null || echo 2); \
	[ $$n -gt 4 ] && n=4; echo $$n)
REQS := setup.py requirements/torch.txt requirements/runtime.txt

.PHONY: install install-downstream mmcv-cuda node-mmcv lint test test-quick demo demo-check wheelhouse \
	wheelhouse-downstream fashion-mnist \
	gpu-window clean clean-venv

install: $(STAMP)

$(STAMP): $(REQS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@$(PY) -c 'import sys; assert sys.version_info[:2] == (3, 11), "randsac_mm needs Python 3.11, .venv has " + sys.version.split()[0] + ": rerun with PYTHON=python3.11 after make clean-venv"'
	$(PIP) install -q --upgrade pip
	$(PIP) install -r requirements/torch.txt
	@$(PY) -c 'import torchvision' || { echo 'torchvision does not import with the installed torch: pip picked a torch build that does not match torchvision 0.28.0 (a local wheel from your pip config?). Install torch==2.13.0 from the normal registry, e.g. PIP_CONFIG_FILE=/dev/null make install.'; exit 1; }
	@if $(PY) -c 'import mmcv; assert mmcv.__version__ == "2.1.0"' 2>/dev/null; then \
	  echo 'mmcv 2.1.0 is already installed'; \
	else \
	  $(PIP) install mmcv-lite==2.1.0; \
	fi
	$(PIP) install -e .
	@touch $(STAMP)

install-downstream: $(DOWNSTREAM_STAMP)

$(DOWNSTREAM_STAMP): $(STAMP) requirements/downstream.txt requirements/build.txt \
		requirements/tests.txt
	@if [ "$(FORCE_CUDA)" = 1 ]; then \
	  $(MAKE) --no-print-directory mmcv-cuda || exit 1; \
	elif $(PY) -c 'import mmcv, mmcv._ext; assert mmcv.__version__ == "2.1.0"' 2>/dev/null; then \
	  echo 'mmcv 2.1.0 with ops is already installed'; \
	else \
	  $(PIP) uninstall -y -q mmcv-lite mmcv; \
	  $(PIP) install -q -r requirements/build.txt; \
	  if $(PIP) install --only-binary=mmcv mmcv==2.1.0 2>/dev/null; then \
	    echo 'mmcv 2.1.0 installed from a wheel'; \
	  else \
	    echo 'No mmcv 2.1.0 wheel found: compiling mmcv ops from source (10 to 35 minutes on 2 cores).'; \
	    MMCV_WITH_OPS=1 FORCE_CUDA=$(FORCE_CUDA) $(PIP) install --no-build-isolation mmcv==2.1.0 || exit 1; \
	  fi; \
	fi
	@$(PY) -c 'import mmcv._ext' || { echo 'mmcv 2.1.0 is installed without its compiled ops (mmcv._ext). Reinstall it with MMCV_WITH_OPS=1 and --no-build-isolation.'; exit 1; }
	$(PIP) install -e '.[tests,downstream]'
	$(PIP) install --no-deps openmim==0.3.9  # why no deps: requirements/tests.txt
	@touch $(DOWNSTREAM_STAMP)

# mmcv 2.1.0 with its CUDA and CPU ops (FORCE_CUDA=1 make install-downstream;
# docs/install.md, "GPU clusters"): a wheel from the wheel folder if it holds
# the CUDA kernels, else compiled with the toolkit of torch's CUDA, which
# tools/misc/cuda_toolkit.py finds (CUDA_HOME, the system nvcc, pip's
# toolkit wheels) or installs (pip's). The build's figures go to
# $(VENV)/mmcv_cuda_build.json.
mmcv-cuda: $(STAMP)
	@if $(PY) -c 'import mmcv; assert mmcv.__version__ == "2.1.0"' 2>/dev/null && \
	    $(PY) tools/misc/cuda_toolkit.py --check-ext >/dev/null 2>&1; then \
	  echo 'mmcv 2.1.0 with CUDA ops is already installed'; exit 0; fi; \
	$(PIP) install -q -r requirements/build.txt || exit 1; \
	toolkit=$$($(PY) tools/misc/cuda_toolkit.py --install) || exit 2; \
	eval "$$toolkit"; \
	$(PIP) uninstall -y -q mmcv-lite mmcv; \
	if $(PIP) install -q --only-binary=mmcv mmcv==2.1.0 2>/dev/null && \
	    $(PY) tools/misc/cuda_toolkit.py --check-ext >/dev/null 2>&1; then \
	  echo 'mmcv 2.1.0 with CUDA ops installed from a wheel'; exit 0; fi; \
	$(PIP) uninstall -y -q mmcv; \
	echo "compiling mmcv 2.1.0 with CUDA and CPU ops for $$TORCH_CUDA_ARCH_LIST (about 27 minutes on 2 cores for one arch)"; \
	start=$$(date +%s); \
	MMCV_WITH_OPS=1 FORCE_CUDA=1 $(PIP) install --no-build-isolation --no-binary=mmcv mmcv==2.1.0 || exit 1; \
	$(PY) tools/misc/cuda_toolkit.py --check-ext --out $(VENV)/mmcv_cuda_build.json \
	  --build-seconds $$(( $$(date +%s) - start ))

# mmcv 2.1.0 with its CUDA ops for a GPU node without network: a Python and
# torch other than .venv's (the node's own), so built in a venv of its own,
# .venv-node, with the toolkit of that torch's CUDA. The wheel and its
# figures (mmcv_cuda_build.json) go to a folder named for the Python and
# torch they need, where tools/misc/gpu_window.sh looks; kept while it is
# there.
NODE_PYTHON ?= python3.12
NODE_TORCH ?= 2.11.0
NODE_ARCH ?= 9.0
NODE_VENV := .venv-node
# The node's Python as X.Y (empty when NODE_PYTHON does not run), and the
# folder of its mmcv (recursive: read only by the recipes that use them).
NODE_PY_VERSION = $(shell $(NODE_PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
NODE_MMCV = wheelhouse/mmcv-cuda/py$(NODE_PY_VERSION)-torch$(NODE_TORCH)
node-mmcv: $(STAMP)
	@version=$(NODE_PY_VERSION); [ -n "$$version" ] || \
	  { echo "make node-mmcv: NODE_PYTHON=$(NODE_PYTHON) does not run: name the node's Python, e.g. NODE_PYTHON=python3.12"; exit 2; }; \
	out=$(NODE_MMCV); \
	if ls $$out/mmcv-2.1.0-*.whl >/dev/null 2>&1 && [ -f $$out/mmcv_cuda_build.json ]; then \
	  echo "$$out holds mmcv 2.1.0 with CUDA ops already"; exit 0; fi; \
	if [ -x $(NODE_VENV)/bin/python ] && ! $(NODE_VENV)/bin/python -c "import sys; assert '%d.%d' % sys.version_info[:2] == '$$version'" 2>/dev/null; then \
	  rm -rf $(NODE_VENV); fi; \
	test -x $(NODE_VENV)/bin/python || $(NODE_PYTHON) -m venv $(NODE_VENV) || exit 2; \
	$(NODE_VENV)/bin/python -m pip install -q torch==$(NODE_TORCH) -r requirements/build.txt || exit 2; \
	toolkit=$$(TORCH_CUDA_ARCH_LIST=$(NODE_ARCH) $(PY) tools/misc/cuda_toolkit.py --install --python $(NODE_VENV)/bin/python) || exit 2; \
	eval "$$toolkit"; \
	rm -rf $$out.partial && mkdir -p $$out.partial || exit 2; \
	echo "compiling mmcv 2.1.0 with CUDA and CPU ops for Python $$version, torch $(NODE_TORCH), $$TORCH_CUDA_ARCH_LIST (about 30 minutes on 2 cores)"; \
	start=$$(date +%s); \
	MMCV_WITH_OPS=1 FORCE_CUDA=1 $(NODE_VENV)/bin/python -m pip wheel -q --no-deps --no-build-isolation \
	  --no-binary=mmcv mmcv==2.1.0 -w $$out.partial || exit 1; \
	seconds=$$(( $$(date +%s) - start )); \
	$(NODE_VENV)/bin/python -m pip install -q --no-deps --force-reinstall $$out.partial/mmcv-2.1.0-*.whl || exit 1; \
	$(PY) tools/misc/cuda_toolkit.py --check-ext --python $(NODE_VENV)/bin/python \
	  --out $$out.partial/mmcv_cuda_build.json --build-seconds $$seconds \
	  --wheel $$(ls $$out.partial/mmcv-2.1.0-*.whl) || exit 1; \
	rm -rf $$out && mv $$out.partial $$out && echo "$$out: $$(du -sh $$out | cut -f1)"

lint: install-downstream
	$(VENV)/bin/ruff check .

# loadfile: a test file is one work unit, so a module fixture (a trained
# checkpoint, a built wheel) is built once, on one worker; the files go out
# in the suite's order (tests/conftest.py: those with the longest tests
# first) as the workers free up.
PYTEST := $(PY) -m pytest tests -n $(TEST_WORKERS) --dist loadfile \
	--no-loadscope-reorder

test: install-downstream lint
	$(PYTEST)

test-quick: install-downstream
	$(PYTEST) -m 'not heavy'

demo: install
	$(PY) -m experiments.demo --work-dir work_dirs/demo

# The whole demo, failing unless its linear-probe margin is the README's 5
# points or more (an accuracy target: CI runs it after the suite).
demo-check: install
	$(PY) -m experiments.demo --work-dir work_dirs/demo-check --require-margin 5

wheelhouse: install
	$(PY) tools/misc/wheelhouse.py --out wheelhouse

# The transfers' packages (mmseg, mmdet and what they need) for the node's
# Python only: the node installs them beside mmcv with CUDA ops.
wheelhouse-downstream: install
	@version=$(NODE_PY_VERSION); [ -n "$$version" ] || \
	  { echo "make wheelhouse-downstream: NODE_PYTHON=$(NODE_PYTHON) does not run: name the node's Python, e.g. NODE_PYTHON=python3.12"; exit 2; }; \
	$(PY) tools/misc/wheelhouse.py --downstream --python $$version --out wheelhouse

# The package's files (usr/share/datasets/fashion-mnist/*.gz), unpacked from
# the downloaded .deb without installing it.
FMNIST := data/fashion-mnist
fashion-mnist:
	@command -v apt-get >/dev/null || { echo 'make fashion-mnist: needs apt-get (Debian, Ubuntu); else copy the four IDX files of https://github.com/zalandoresearch/fashion-mnist into $(FMNIST)'; exit 2; }
	rm -rf $(FMNIST).tmp && mkdir -p $(FMNIST).tmp
	cd $(FMNIST).tmp && apt-get download dataset-fashion-mnist
	dpkg-deb -x $(FMNIST).tmp/dataset-fashion-mnist_*.deb $(FMNIST).tmp/root
	mkdir -p $(FMNIST) && mv $(FMNIST).tmp/root/usr/share/datasets/fashion-mnist/*-ubyte.gz $(FMNIST)/
	rm -rf $(FMNIST).tmp
	ls -l $(FMNIST)

# What a GPU node without network needs for tools/misc/gpu_window.sh, and
# the command, with the commit of this tree (the node's copy has no .git).
# PARTS: the parts the node runs; what they need is made and carried:
# Fashion-MNIST for speed, fit and study, mmcv with CUDA ops for the node's
# Python and torch (make node-mmcv) with mmseg's and mmdet's wheels (make
# wheelhouse-downstream) for ops and transfer, which carry the node's
# Python's wheelhouse alone (to keep the copy small).
PARTS ?= kernels fit
WINDOW_NEEDS := wheelhouse $(if $(filter speed fit study,$(PARTS)),fashion-mnist) \
	$(if $(filter ops transfer,$(PARTS)),node-mmcv wheelhouse-downstream)
gpu-window: $(WINDOW_NEEDS)
	@commit=$$($(PY) -c 'from experiments.benchmark_io import code_commit; print(code_commit() or "")') && \
	if [ -z "$$commit" ]; then echo 'make gpu-window: no git here to name the commit the window runs'; exit 2; fi && \
	case $$commit in *+dirty) echo "note: $$commit: the window runs this tree's uncommitted changes too (git status)";; esac && \
	carry="$(strip $(if $(filter ops transfer,$(PARTS)),wheelhouse/py$(NODE_PY_VERSION) wheelhouse/py$(NODE_PY_VERSION)-downstream \
	  $(NODE_MMCV),wheelhouse/py3.11 wheelhouse/py3.12) \
	  $(if $(filter speed fit study,$(PARTS)),$(FMNIST)))" && \
	tree=$$(git ls-files -z | du -cb --files0-from=- | tail -n 1 | cut -f1) && \
	bytes=$$(du -cbL $$carry | tail -n 1 | cut -f1) && \
	echo "carry: $$carry ($$(( (bytes + tree) / 1048576 )) MiB with the tree)" && \
	echo "command: RANDSAC_COMMIT=$$commit bash tools/misc/gpu_window.sh \$$OUT 9 $(PARTS)"

clean:
	rm -rf work_dirs

clean-venv:
	rm -rf $(VENV)
