#!/usr/bin/env python3
"""Piper's voice made a function of what it says: `make deps` runs this once.

A Piper voice (VITS) draws Gaussian noise twice per synthesis, with onnxruntime's RandomNormalLike:
for its durations (scaled by `noise_w`) and for its frames (scaled by `noise_scale`). onnxruntime
seeds that generator from the clock when a process starts, and every synthesis advances it, so the
same sentence sounded different in another process, or after another sentence — and a test run
heard differently, now and then, what another had heard (docs/virtual-time.md). Its C API has no
call to seed it.

This replaces each RandomNormalLike with a fixed block of noise, made here from a fixed seed and
tiled as far as the sentence needs: the noise is still there (the voice sounds as it did), but the
same phonemes give the same audio, in any process, after anything.

    piper-fixed-noise.py MODEL.onnx OUT.onnx

The noise is computed with integers and exact sums only (SplitMix64; a sum of twelve uniforms,
which is Gaussian to within a few per cent), so OUT is the same file on any machine; `make deps`
checks its SHA-256. Needs the onnx Python package (`make deps` installs it into .deps/onnx-tools).
"""
import struct
import sys

import onnx
from onnx import TensorProto, helper

SEED = 0x5EED_0F_B0_1CE
# Frames of noise before the block repeats (~12 s of speech at 22 050 Hz, hop 256), and phoneme ids
# for the durations' noise (a long sentence's worth).
FRAMES = 1024
IDS = 512
MASK = (1 << 64) - 1


def splitmix64(state):
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def gaussian_block(count, seed):
    """`count` float32 values, mean 0, variance 1: each the sum of twelve 24-bit uniforms less 6
    (exact in binary, so no platform's libm or rounding enters)."""
    source = splitmix64(seed)
    values = []
    for _ in range(count):
        total = sum(next(source) >> 40 for _ in range(12))  # twelve integers below 2**24
        values.append(total / float(1 << 24) - 6.0)
    return struct.pack(f"<{count}f", *values)


def replace_random(graph, node, channels, length, seed):
    """`node` (RandomNormalLike of a [1, channels, T] tensor) becomes the fixed block
    [1, channels, length] tiled to cover T and cut to the shape of its input."""
    like, out = node.input[0], node.output[0]
    prefix = node.name.replace("/", "_").strip("_") + "_fixed"
    block = f"{prefix}_noise"
    graph.initializer.append(helper.make_tensor(block, TensorProto.FLOAT, [1, channels, length],
                                                gaussian_block(channels * length, seed), raw=True))
    graph.initializer.append(helper.make_tensor(f"{prefix}_length", TensorProto.INT64, [1], [length]))
    graph.initializer.append(helper.make_tensor(f"{prefix}_length_less_1", TensorProto.INT64, [1], [length - 1]))
    graph.initializer.append(helper.make_tensor(f"{prefix}_ones", TensorProto.INT64, [2], [1, 1]))
    graph.initializer.append(helper.make_tensor(f"{prefix}_starts", TensorProto.INT64, [3], [0, 0, 0]))
    graph.initializer.append(helper.make_tensor(f"{prefix}_axis2", TensorProto.INT64, [1], [2]))
    graph.initializer.append(helper.make_tensor(f"{prefix}_axis3", TensorProto.INT64, [1], [3]))
    nodes = [
        helper.make_node("Shape", [like], [f"{prefix}_shape"]),
        helper.make_node("Slice", [f"{prefix}_shape", f"{prefix}_axis2", f"{prefix}_axis3"], [f"{prefix}_t"]),
        helper.make_node("Add", [f"{prefix}_t", f"{prefix}_length_less_1"], [f"{prefix}_t_up"]),
        helper.make_node("Div", [f"{prefix}_t_up", f"{prefix}_length"], [f"{prefix}_repeats"]),
        helper.make_node("Concat", [f"{prefix}_ones", f"{prefix}_repeats"], [f"{prefix}_tiles"], axis=0),
        helper.make_node("Tile", [block, f"{prefix}_tiles"], [f"{prefix}_tiled"]),
        helper.make_node("Slice", [f"{prefix}_tiled", f"{prefix}_starts", f"{prefix}_shape"], [out]),
    ]
    index = list(graph.node).index(node)
    graph.node.remove(node)
    for offset, new in enumerate(nodes):
        graph.node.insert(index + offset, new)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: piper-fixed-noise.py MODEL.onnx OUT.onnx")
    model = onnx.load(sys.argv[1])
    graph = model.graph
    randoms = [node for node in graph.node if node.op_type == "RandomNormalLike"]
    # A single-speaker Piper voice: the durations' noise ([1, 2, ids]) in its duration predictor,
    # then the frames' ([1, 192, frames]).
    durations = [node for node in randoms if node.name.startswith("/dp/")]
    frames = [node for node in randoms if not node.name.startswith("/dp/")]
    if len(durations) != 1 or len(frames) != 1:
        sys.exit(f"not the Piper voice this expects: RandomNormalLike nodes {[node.name for node in randoms]}")
    replace_random(graph, durations[0], 2, IDS, SEED)
    replace_random(graph, frames[0], 192, FRAMES, SEED + 1)
    onnx.checker.check_model(model)
    onnx.save(model, sys.argv[2])


if __name__ == "__main__":
    main()
