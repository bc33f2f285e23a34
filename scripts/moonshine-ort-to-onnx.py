#!/usr/bin/env python3
"""Moonshine's models as moonshine-cpp ships them, made fast to run: `make deps` runs this once.

moonshine-cpp ships Moonshine base-en in onnxruntime's own format (`.ort`) with its weights kept as
int8 and turned back into floats by ops in the graph (Cast, Mul, Add), and the token table
transposed by a Transpose for the output projection. onnxruntime does not fold constants in a
model loaded from its own format, so every run did that work again: per decoder step, 13.6 million
weights cast, scaled, shifted and transposed before the step's own arithmetic — ~60 ms of a core
for a step that needs ~10. This writes each model as ONNX with those constants folded (the same
values, computed once here by onnxruntime's own kernels), so a transcription does only its own work.

    moonshine-ort-to-onnx.py MODEL.ort OUT.onnx

writes OUT.onnx and its weights beside it, OUT.onnx.data (onnxruntime reads them straight from the
file, so a session loads in ~0.3 s rather than ~0.7 s from one protobuf).

Needs the onnxruntime and onnx Python packages (`make deps` installs them into .deps/onnx-tools).
"""
import hashlib
import os
import sys
import tempfile

import onnx
import onnxruntime as ort


def subgraphs(graph):
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield attribute.g
            yield from attribute.graphs


def name_subgraphs(graph, path):
    """onnxruntime writes a model read from its own format with unnamed subgraphs (the merged
    decoder's two branches), which ONNX's checker refuses when the model is read back."""
    if not graph.name:
        graph.name = path
    for index, subgraph in enumerate(subgraphs(graph)):
        name_subgraphs(subgraph, f"{path}/{index}")


def hoist_shared_constants(model):
    """Folding leaves a copy of a constant in each branch that uses it (the transposed token table,
    54 MB, twice); each branch constant of 64 KB or more moves to the main graph, one copy per
    content, which the branches see as the outer scope."""
    main = model.graph
    taken = {value.name for value in main.initializer} | {value.name for value in main.input}
    by_content = {}
    for branch in subgraphs(main):
        kept = []
        renames = {}
        for tensor in branch.initializer:
            if len(tensor.raw_data) < 1 << 16:
                kept.append(tensor)
                continue
            key = (tensor.data_type, tuple(tensor.dims), hashlib.sha256(tensor.raw_data).hexdigest())
            if key not in by_content:
                name = tensor.name
                while name in taken:
                    name += "_shared"
                taken.add(name)
                hoisted = onnx.TensorProto()
                hoisted.CopyFrom(tensor)
                hoisted.name = name
                main.initializer.append(hoisted)
                by_content[key] = name
            renames[tensor.name] = by_content[key]
        del branch.initializer[:]
        branch.initializer.extend(kept)
        for node in branch.node:
            for index, name in enumerate(node.input):
                if name in renames:
                    node.input[index] = renames[name]


def saved_by_onnxruntime(source, level, target):
    """`source` as onnxruntime holds it after optimising at `level`, written to `target` as ONNX."""
    options = ort.SessionOptions()
    options.graph_optimization_level = level
    options.optimized_model_filepath = target
    ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    return onnx.load(target)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source, target = sys.argv[1], sys.argv[2]
    levels = ort.GraphOptimizationLevel
    with tempfile.TemporaryDirectory() as work:
        # 1. The graph as onnxruntime reads it, written out as ONNX (no optimisation is applied to
        #    a model in onnxruntime's format, so this is the model as shipped).
        model = saved_by_onnxruntime(source, levels.ORT_DISABLE_ALL, os.path.join(work, "plain.onnx"))
        name_subgraphs(model.graph, "main")
        named = os.path.join(work, "named.onnx")
        onnx.save(model, named)
        # 2. Constants folded: the basic level only (folding and redundant-node removal, no
        #    kernels chosen for this machine's CPU), so the file is the same on every machine.
        model = saved_by_onnxruntime(named, levels.ORT_ENABLE_BASIC, os.path.join(work, "folded.onnx"))
        hoist_shared_constants(model)
        onnx.checker.check_model(model)
        onnx.save(model, target, save_as_external_data=True, all_tensors_to_one_file=True,
                  location=os.path.basename(target) + ".data", size_threshold=1024)


if __name__ == "__main__":
    main()
