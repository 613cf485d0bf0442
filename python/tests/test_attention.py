"""GraphAttention on NumPy inputs against the dense O(N^2) attention written out with NumPy."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import edgewise


def dense_reference(layer: edgewise.GraphAttention, edge_index: np.ndarray, x: np.ndarray, heads: int,
                    head_dim: int) -> tuple[np.ndarray, np.ndarray]:
    """Scaled dot-product attention over a dense mask of the edges: scores q_i . k_j / sqrt(d) of
    edge j -> i, softmax over i's in-edges, heads concatenated, then W^O and its bias."""
    weights = layer.parameters()
    projected = x.astype(np.float64) @ weights["attention.w_in"]
    width = heads * head_dim
    q, k, v = projected[:, :width], projected[:, width:2 * width], projected[:, 2 * width:]
    n = x.shape[0]
    mask = np.zeros((n, n), dtype=bool)
    mask[edge_index[1], edge_index[0]] = True  # [target, source]
    output = np.zeros((n, width))
    alpha = np.zeros((edge_index.shape[1], heads))
    for h in range(heads):
        part = slice(h * head_dim, (h + 1) * head_dim)
        scores = np.where(mask, q[:, part] @ k[:, part].T / np.sqrt(head_dim), -np.inf)
        scores = np.exp(scores - scores.max(axis=1, keepdims=True))
        probabilities = scores / scores.sum(axis=1, keepdims=True)
        output[:, part] = probabilities @ v[:, part]
        alpha[:, h] = probabilities[edge_index[1], edge_index[0]]
    return output @ weights["attention.w_out"] + weights["attention.b_out"], alpha


@pytest.mark.parametrize("heads,head_dim", [(1, 8), (4, 16), (3, 5)])
def test_forward_matches_the_dense_attention(heads: int, head_dim: int) -> None:
    rng = np.random.default_rng(7)
    n = 12
    pairs = {(int(s), int(t)) for s, t in rng.integers(0, n, size=(40, 2))} | {(i, i) for i in range(n)}
    edge_index = np.array(sorted(pairs), dtype=np.int64).T
    x = rng.normal(size=(n, 6)).astype(np.float32)
    layer = edgewise.GraphAttention(6, heads=heads, head_dim=head_dim, seed=11)
    output = layer.forward(edge_index, x)
    expected, alpha = dense_reference(layer, edge_index, x, heads, head_dim)
    assert output.shape == (n, layer.out_dim)
    assert output == pytest.approx(expected, abs=1e-4)
    assert layer.attention_weights() == pytest.approx(alpha, abs=1e-5)


def test_bad_inputs_are_refused() -> None:
    layer = edgewise.GraphAttention(3, heads=2, head_dim=4)
    with pytest.raises(ValueError, match="call forward first"):
        layer.attention_weights()
    with pytest.raises(ValueError, match="in_dim"):
        layer.forward(np.array([[0], [0]]), np.zeros((2, 5), dtype=np.float32))
    with pytest.raises(ValueError, match=r"\[2, E\]"):
        layer.forward(np.array([0, 1]), np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError):
        layer.forward(np.array([[0], [7]]), np.zeros((2, 3), dtype=np.float32))
    with pytest.raises(ValueError):
        edgewise.GraphAttention(3, score="nonsense")


def test_bf16_products_round_the_operands_and_float32_restores_the_bits() -> None:
    rng = np.random.default_rng(8)
    n = 40
    edge_index = np.array([[i, (i + d) % n] for i in range(n) for d in range(4)], dtype=np.int64).T
    x = rng.normal(size=(n, 32)).astype(np.float32)
    layer = edgewise.GraphAttention(32, heads=4, head_dim=16, seed=3)
    expected, _ = dense_reference(layer, edge_index, x, 4, 16)
    float32 = layer.forward(edge_index, x).copy()
    assert edgewise.precision() == "float32"
    try:
        edgewise.set_precision("bf16")
        if not edgewise.bf16_available():
            assert edgewise.precision() == "float32"
            pytest.skip("this CPU has no AVX-512 BF16, so bf16 products run float32")
        assert edgewise.precision() == "bf16"
        bf16 = layer.forward(edge_index, x).copy()
        assert not np.array_equal(bf16, float32)
        # bfloat16 keeps 8 bits of each operand: about 0.4 % of each product
        assert bf16 == pytest.approx(expected, rel=0.05, abs=0.02)
    finally:
        edgewise.set_precision("float32")
    assert np.array_equal(layer.forward(edge_index, x), float32)
    with pytest.raises(ValueError, match="expected auto, float32 or bf16"):
        edgewise.set_precision("fp16")


def test_the_module_starts_at_the_environments_precision_and_auto_needs_bf16() -> None:
    try:
        edgewise.set_precision("auto")
        assert edgewise.precision() in (("float32", "bf16") if edgewise.bf16_available() else ("float32",))
    finally:
        edgewise.set_precision("float32")

    def start(choice: str) -> subprocess.CompletedProcess:
        environment = dict(os.environ, EDGEWISE_PRECISION=choice, PYTHONPATH=os.pathsep.join(sys.path))
        return subprocess.run([sys.executable, "-c", "import edgewise; print(edgewise.precision())"],
                              env=environment, capture_output=True, text=True, check=False)

    started = start("bf16")
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == ("bf16" if edgewise.bf16_available() else "float32")
    refused = start("half")
    assert refused.returncode != 0
    assert "EDGEWISE_PRECISION: precision 'half'" in refused.stderr
