#!/usr/bin/python3
"""Check and evaluate an ONNX model exported by train/dqn (EncodeONNX).

Usage: onnx_check.py MODEL.onnx INPUTS.json

INPUTS.json is a list of feature vectors (one per row). The model is
checked with onnx.checker (full_check) and onnx.shape_inference, then its
graph is evaluated with a tiny numpy interpreter that knows only Gemm and
Relu (onnx 1.12 has no reference evaluator). Prints a JSON object:
{"outputs": [[...], ...], "canonical": bool, ...}; "canonical" says
whether the file equals protobuf's own serialisation of the parsed model.
"""
import json
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference


def attrs(node):
    return {a.name: helper.get_attribute_value(a) for a in node.attribute}


def gemm(node, env):
    a = attrs(node)
    unknown = set(a) - {"alpha", "beta", "transA", "transB"}
    if unknown:
        raise ValueError("Gemm %s: unsupported attributes %s" % (node.name, sorted(unknown)))
    x = env[node.input[0]]
    w = env[node.input[1]]
    if a.get("transA", 0):
        x = x.T
    if a.get("transB", 0):
        w = w.T
    y = a.get("alpha", 1.0) * (x @ w)
    if len(node.input) > 2 and node.input[2]:
        y = y + a.get("beta", 1.0) * env[node.input[2]]
    return y


def relu(node, env):
    if node.attribute:
        raise ValueError("Relu %s: unexpected attributes" % node.name)
    return np.maximum(env[node.input[0]], 0)


OPS = {"Gemm": gemm, "Relu": relu}


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: onnx_check.py MODEL.onnx INPUTS.json")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    model = onnx.load_from_string(data)
    onnx.checker.check_model(model, full_check=True)
    inferred = shape_inference.infer_shapes(model, check_type=True, strict_mode=True)

    g = model.graph
    env = {}
    for t in g.initializer:
        env[t.name] = numpy_helper.to_array(t).astype(np.float32)
    with open(sys.argv[2]) as f:
        x = np.asarray(json.load(f), dtype=np.float32)
    if len(g.input) != 1 or len(g.output) != 1:
        raise ValueError("want one input and one output")
    env[g.input[0].name] = x
    for node in g.node:
        if node.domain not in ("", "ai.onnx"):
            raise ValueError("node %s: domain %r" % (node.name, node.domain))
        op = OPS.get(node.op_type)
        if op is None:
            raise ValueError("node %s: unsupported op %s" % (node.name, node.op_type))
        if len(node.output) != 1:
            raise ValueError("node %s: want one output" % node.name)
        env[node.output[0]] = op(node, env).astype(np.float32)
    y = env[g.output[0].name]

    def shape(vi):
        return [d.dim_param if d.HasField("dim_param") else d.dim_value
                for d in vi.type.tensor_type.shape.dim]

    json.dump({
        "outputs": y.astype(np.float64).tolist(),
        "canonical": model.SerializeToString() == data,
        "ir_version": model.ir_version,
        "opset": [[o.domain, o.version] for o in model.opset_import],
        "input_shape": shape(g.input[0]),
        "output_shape": shape(g.output[0]),
        "inferred_values": len(inferred.graph.value_info),
        "metadata": {p.key: p.value for p in model.metadata_props},
        "producer": [model.producer_name, model.producer_version],
    }, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
