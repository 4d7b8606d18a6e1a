#!/usr/bin/env python3
"""Seed 001's Conv1D model trained with Adam, in NumPy (float64), to check looplab's engine.

Reads the case conv_net_test.cpp writes (spec, initial weights, data, the engine's losses),
trains the same model the same number of steps with its own im2col, pooling, dropout mask,
binary cross-entropy from logits and Adam, and exits 1 when a loss differs by more than 1e-4.
It shares nothing with the engine but the inputs and the dropout hash (ops.hpp, dropout_keeps).
"""
import json
import sys

import numpy as np

M64 = (1 << 64) - 1


def keeps(seed, t, n, rate):
    """dropout_keeps(seed, t, i, rate) for i < n: SplitMix64's mixer, top 24 bits."""
    with np.errstate(over="ignore"):
        i = np.arange(n, dtype=np.uint64)
        z = np.uint64((seed << 32) | t) + (i + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    u = (z >> np.uint64(40)).astype(np.float64) / 16777216.0
    return u >= rate


def window(length, kernel, stride, same):
    """Keras's output length and left padding."""
    if same:
        out = -(-length // stride)
        pad = max((out - 1) * stride + kernel - length, 0) // 2
    else:
        out, pad = (length - kernel) // stride + 1, 0
    return out, pad


def conv(x, w, b, kernel, stride, same):
    """x (batch, length, channels) → (batch, out, filters); returns the windows too."""
    batch, length, channels = x.shape
    out, pad = window(length, kernel, stride, same)
    cols = np.zeros((batch, out, kernel, channels))
    for o in range(out):
        for k in range(kernel):
            t = o * stride - pad + k
            if 0 <= t < length:
                cols[:, o, k, :] = x[:, t, :]
    cols = cols.reshape(batch, out, kernel * channels)
    return cols @ w + b, cols, pad, out


def conv_back(dy, cols, w, x_shape, kernel, stride, pad, out):
    batch, length, channels = x_shape
    dw = np.einsum("bok,bof->kf", cols, dy)
    db = dy.sum(axis=(0, 1))
    dcols = (dy @ w.T).reshape(batch, out, kernel, channels)
    dx = np.zeros(x_shape)
    for o in range(out):
        for k in range(kernel):
            t = o * stride - pad + k
            if 0 <= t < length:
                dx[:, t, :] += dcols[:, o, k, :]
    return dx, dw, db


def loss_and_grads(case, params, x, y, t):
    convs, dense = case["convs"], case["dense"]
    h, cache, p = x, [], 0
    for c in convs:
        w, b = params[p], params[p + 1]
        y_, cols, pad, out = conv(h, w, b[0], c["kernel"], c["stride"], c["same"])
        cache.append((cols, h.shape, pad, out))
        h, p = y_, p + 2
    steps = h.shape[1]
    h = h.mean(axis=1)
    mask_at, mask, acts = case["dropout_after"], None, []
    for d in range(len(dense) + 1):
        if d == mask_at and case["dropout_rate"] > 0:
            rate = case["dropout_rate"]
            mask = keeps(case["dropout_seed"], t, h.size, rate).reshape(h.shape) / (1 - rate)
            h = h * mask
        w, b = params[p], params[p + 1]
        z = h @ w + b
        acts.append((h, z))
        h, p = (np.maximum(z, 0) if d < len(dense) else z), p + 2
    logit = h
    loss = np.mean(np.logaddexp(0, logit) - y * logit)
    grads = [None] * len(params)
    g = (1 / (1 + np.exp(-logit)) - y) / logit.size
    for d in reversed(range(len(dense) + 1)):
        p -= 2
        hin, z = acts[d]
        if d < len(dense):
            g = g * (z > 0)
        grads[p], grads[p + 1] = hin.T @ g, g.sum(axis=0, keepdims=True)
        g = g @ params[p].T
        if d == mask_at and mask is not None:
            g = g * mask
    g = np.repeat(g[:, None, :], steps, axis=1) / steps
    for i in reversed(range(len(convs))):
        p -= 2
        c = convs[i]
        cols, shape, pad, out = cache[i]
        g, dw, db = conv_back(g, cols, params[p], shape, c["kernel"], c["stride"], pad, out)
        grads[p], grads[p + 1] = dw, db[None, :]
    return loss, grads


def main():
    case = json.load(open(sys.argv[1]))
    batch, length, channels = case["batch"], case["length"], case["channels"]
    x = np.array(case["x"], dtype=np.float64).reshape(batch, length, channels)
    y = np.array(case["y"], dtype=np.float64).reshape(batch, 1)
    params = [np.array(p["data"], dtype=np.float64).reshape(p["shape"]) for p in case["params"]]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, b1, b2, eps = case["lr"], 0.9, 0.999, 1e-7
    worst = 0.0
    for t, engine in enumerate(case["losses"], start=1):
        loss, grads = loss_and_grads(case, params, x, y, t)
        worst = max(worst, abs(loss - engine))
        print(f"step {t:2d}: NumPy {loss:.7f}  looplab {engine:.7f}  difference {loss - engine:+.2e}")
        rate = lr * np.sqrt(1 - b2**t) / (1 - b1**t)
        for i, g in enumerate(grads):
            m[i] = b1 * m[i] + (1 - b1) * g
            v[i] = b2 * v[i] + (1 - b2) * g * g
            params[i] = params[i] - rate * m[i] / (np.sqrt(v[i]) + eps)
    print(f"largest difference {worst:.2e} (allowed 1e-4)")
    return 0 if worst <= 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
