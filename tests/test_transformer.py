"""lib.transformer: the model against hand counts, NumPy references, autograd and its own causality."""

import math
import re
from dataclasses import replace

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from lib import positional, toylang, transformer
from lib.threads import torch_threads
from lib.transformer import TrainConfig, Transformer, TransformerConfig

TINY = dict(n_layer=1, n_head=2, d_model=8, mlp_ratio=2, vocab_size=5, max_len=6)


def tiny(position, **changes):
    return TransformerConfig(position=position, **{**TINY, **changes})


# --- configuration ---------------------------------------------------------------------------------


@pytest.mark.parametrize("changes, message", [
    (dict(position="absolute"), "position must be one of"),
    (dict(n_layer=0), r"n_layer must be an integer in \[1, 268435456\], got 0"),
    (dict(d_model=30, n_head=4), r"d_model \(30\) must be a multiple of n_head \(4\)"),
    (dict(position="rope", d_model=12, n_head=4), "head width d_model / n_head must be even, got 3"),
    (dict(rope_interpolation=0.5), "rope_interpolation must be a finite number >= 1, got 0.5"),
    (dict(rope_base=1.0), "rope_base must be a finite number > 1, got 1.0"),
    (dict(alibi_slopes=(0.5, 0.25)), r"alibi_slopes must have one slope per head \(4\), got 2"),
    (dict(alibi_slopes=(0.5, -1.0, 0.1, 0.1)), r"alibi_slopes\[1\] must be a finite number >= 0, got -1.0"),
    (dict(embed_std=0.0), "embed_std must be a finite number > 0, got 0.0"),
])
def test_bad_config_is_a_clear_error(changes, message):
    with pytest.raises(ValueError, match=message):
        TransformerConfig(**changes)


@pytest.mark.parametrize("changes, message", [
    (dict(steps=-1), "steps must be an integer in \\[0, 268435456\\]"),
    (dict(lr=0.0), r"lr must be a finite number in \(0, 1\], got 0.0"),
    (dict(lr=float("nan")), "lr must be a finite number"),
    (dict(betas=(0.9, 1.0)), r"betas\[1\] must be a finite number in \[0, 1\), got 1.0"),
    (dict(betas=(0.9,)), "betas must be a tuple of two numbers"),
    (dict(grad_clip=0.0), "grad_clip must be a finite number"),
    (dict(batch_size=0), "batch_size must be an integer in \\[1, 268435456\\]"),
    (dict(lr=1e300), r"lr must be a finite number in \(0, 1\], got 1e\+300"),
    (dict(lr=1.5), r"lr must be a finite number in \(0, 1\], got 1.5"),
    (dict(weight_decay=1e30), r"weight_decay must be a finite number in \[0, 1\], got 1e\+30"),
])
def test_bad_train_config_is_a_clear_error(changes, message):
    with pytest.raises(ValueError, match=message):
        TrainConfig(**changes)


@pytest.mark.parametrize("changes, message", [
    (dict(max_len=True), r"max_len must be an integer in \[1, 268435456\], got True"),
    (dict(alibi_slopes=(0.5, "x", 0.1, 0.1)), r"alibi_slopes\[1\] must be a finite number >= 0"),
    (dict(n_head=2.0), r"n_head must be an integer in \[1, 268435456\], got 2.0"),
])
def test_config_of_the_wrong_type_is_a_type_error(changes, message):
    with pytest.raises(TypeError, match=message):
        TransformerConfig(**changes)


def test_an_unknown_field_is_named_with_the_fields():
    with pytest.raises(TypeError, match="^TrainConfig has no field 'unknown'; the fields are context, batch_size, "
                                        "steps, lr, warmup, weight_decay, betas, grad_clip$"):
        TrainConfig(unknown=1)
    with pytest.raises(TypeError, match="^TransformerConfig has no field 'n_heads'; the fields are position, n_layer, "
                                        "n_head, d_model"):
        replace(TransformerConfig(), n_heads=2)


def test_learning_rate_schedule_warms_up_then_follows_a_cosine():
    tc = TrainConfig(steps=110, warmup=10, lr=1.0)
    assert tc.lr_at(0) == pytest.approx(0.1)
    assert tc.lr_at(9) == pytest.approx(1.0)
    assert tc.lr_at(10) == pytest.approx(1.0)
    assert tc.lr_at(60) == pytest.approx(0.5)  # half-way through the decay: cos(pi / 2) = 0
    assert tc.lr_at(110) == pytest.approx(0.0, abs=1e-12)


def test_parameter_count_by_hand():
    d, V, r, n = 32, 34, 4, 128
    block = 4 * d + (3 * d * d + 3 * d) + (d * d + d) + (d * r * d + r * d) + (r * d * d + d)
    common = V * d + 2 * d + d * V  # token table, final LayerNorm, head
    for scheme in ("none", "sinusoidal", "rope", "alibi"):
        assert Transformer(TransformerConfig(position=scheme)).num_parameters == common + block
    assert Transformer(TransformerConfig(position="learned", n_layer=2)).num_parameters == common + 2 * block + n * d
    assert common + block == 14_944


def test_learned_table_starts_as_the_lessons_learned_table():
    model = Transformer(TransformerConfig(position="learned"), seed=3)
    expected = positional.LearnedPositionTable(128, 32, seed=3, scale=0.02).weight
    np.testing.assert_array_equal(model.pos.detach().numpy(), expected)


def test_sinusoidal_buffer_is_the_sinusoidal_table_and_not_a_parameter():
    model = Transformer(TransformerConfig(position="sinusoidal"))
    np.testing.assert_array_equal(model.pos.numpy(), positional.sinusoidal_table(128, 32))
    assert "pos" not in dict(model.named_parameters())


def test_same_seed_same_weights_other_seed_other_weights():
    a, b, c = (Transformer(TransformerConfig(position="rope"), seed=s) for s in (1, 1, 2))
    for (name, p), q, r in zip(a.named_parameters(), b.parameters(), c.parameters()):
        assert torch.equal(p, q)
        if name.endswith("weight") and "ln" not in name:
            assert not torch.equal(p, r), name


# --- RoPE and ALiBi inside the model, against lib.positional -------------------------------------------


def test_rope_rotate_agrees_with_the_numpy_reference():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 10, 8))  # (B, H, T, hd)
    for base, s in ((10_000.0, 1.0), (500.0, 1.0), (10_000.0, 2.5)):
        angles = torch.as_tensor(positional.rope_angles(np.arange(10), 8, base, s))
        ours = transformer.rope_rotate(torch.as_tensor(x), angles).numpy()
        np.testing.assert_allclose(ours, positional.rope(x, np.arange(10), base, s), rtol=0, atol=1e-14)


def test_rope_rotate_turns_each_pair_by_hand():
    # position 0: (1, 2) by a quarter turn -> (-2, 1), (3, 4) by a half turn -> (-3, -4); position 1: no turn
    x = torch.tensor([[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]], dtype=torch.float64)  # (1, T=2, d=4)
    angles = torch.tensor([[math.pi / 2, math.pi], [0.0, 0.0]], dtype=torch.float64)  # (T, d/2)
    out = transformer.rope_rotate(x, angles)
    expected = torch.tensor([[[-2.0, 1.0, -3.0, -4.0], [5.0, 6.0, 7.0, 8.0]]], dtype=torch.float64)
    torch.testing.assert_close(out, expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("x, angles, error, message", [
    (np.zeros((1, 2, 4)), torch.zeros(2, 2), TypeError, "x must be a torch.Tensor .*got ndarray"),
    (torch.zeros(1, 2, 4), np.zeros((2, 2)), TypeError, "angles must be a torch.Tensor .*got ndarray"),
    (torch.zeros(1, 2, 4, dtype=torch.int64), torch.zeros(2, 2), TypeError,
     "x must be a floating-point torch.Tensor .*got dtype torch.int64"),
    (torch.zeros(1, 2, 4, dtype=torch.complex128), torch.zeros(2, 2), TypeError, "x must be a floating-point"),
    (torch.zeros(1, 2, 4), torch.zeros(2, 2, dtype=torch.bool), TypeError, "angles must be a floating-point"),
    (torch.zeros(1, 2, 3), torch.zeros(2, 1), ValueError, r"even width d >= 2 .*got \(1, 2, 3\)"),
    (torch.zeros(4), torch.zeros(1, 2), ValueError, r"x must have shape \(\.\.\., T, d\)"),
    # too few rows of angles would be broadcast: every position turned by position 0's angle
    (torch.zeros(1, 3, 4), torch.ones(1, 2), ValueError, r"angles must have shape \(T, d/2\) = \(3, 2\).*got \(1, 2\)"),
    (torch.zeros(1, 3, 4), torch.ones(3, 4), ValueError, r"= \(3, 2\).*got \(3, 4\)"),
    (torch.full((1, 2, 4), float("nan")), torch.zeros(2, 2), ValueError, "x contains NaN or infinity"),
    (torch.zeros(1, 2, 4), torch.full((2, 2), float("inf")), ValueError, "angles contains NaN or infinity"),
])
def test_rope_rotate_refuses_bad_input_by_name(x, angles, error, message):
    with pytest.raises(error, match=message):
        transformer.rope_rotate(x, angles)


def _attention_by_hand(config, attn, x):
    """The attention weights of one layer recomputed in NumPy from its weights, for input x (T, d)."""
    W, b = attn.qkv.weight.detach().numpy(), attn.qkv.bias.detach().numpy()
    qkv = x @ W.T + b
    d, H, hd = config.d_model, config.n_head, config.head_dim
    T = x.shape[0]
    q, k = qkv[:, :d].reshape(T, H, hd).transpose(1, 0, 2), qkv[:, d:2 * d].reshape(T, H, hd).transpose(1, 0, 2)
    if config.position == "rope":
        q = positional.rope(q, np.arange(T), config.rope_base, config.rope_interpolation)
        k = positional.rope(k, np.arange(T), config.rope_base, config.rope_interpolation)
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(hd)
    if config.position == "alibi":
        scores = scores + positional.alibi_bias(T, H, config.alibi_slopes)
    scores = np.where(np.tril(np.ones((T, T), bool)), scores, -np.inf)
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("config", [
    tiny("rope"), tiny("rope", rope_base=100.0, rope_interpolation=2.0), tiny("alibi"),
    tiny("alibi", alibi_slopes=(0.3, 0.0)), tiny("none"),
], ids=["rope", "rope-base100-s2", "alibi", "alibi-own-slopes", "none"])
def test_attention_weights_agree_with_numpy(config):
    model = Transformer(config, seed=1)
    attn = model.blocks[0].attn
    x = np.random.default_rng(2).standard_normal((6, config.d_model))
    _, weights = attn(torch.as_tensor(x)[None])
    np.testing.assert_allclose(weights[0].detach().numpy(), _attention_by_hand(config, attn, x), atol=1e-13)


def test_alibi_with_zero_queries_and_keys_attends_by_distance_alone():
    config = tiny("alibi")
    model = Transformer(config)
    with torch.no_grad():
        model.blocks[0].attn.qkv.weight[: 2 * config.d_model].zero_()  # queries and keys are zero
        model.blocks[0].attn.qkv.bias.zero_()
    _, weights = model.blocks[0].attn(torch.randn(1, 6, config.d_model, dtype=torch.float64))
    bias = positional.alibi_bias(6, 2)
    expected = np.exp(bias) / np.exp(bias).sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(weights[0].detach().numpy(), expected, atol=1e-15)
    # the steeper head (slope 1/16) puts more weight on the nearest key than the shallower one (1/256)
    assert weights[0, 0, 5, 5] > weights[0, 1, 5, 5]


# --- causality, gradients, training ----------------------------------------------------------------


@pytest.mark.parametrize("position", transformer.POSITION_SCHEMES)
def test_no_information_from_the_future(position):
    model = Transformer(tiny(position, n_layer=2), seed=0).eval()
    ids = torch.tensor([[0, 1, 2, 3, 4, 0]])
    base = model(ids)
    for t in range(6):
        changed = ids.clone()
        changed[0, t] = (changed[0, t] + 1) % 5
        out = model(changed)
        assert torch.equal(out[0, :t], base[0, :t]), f"logits before {t} changed"
        assert not torch.allclose(out[0, t:], base[0, t:]), f"perturbing token {t} changed nothing after it"


@pytest.mark.parametrize("position", transformer.POSITION_SCHEMES)
def test_gradients_agree_with_finite_differences(position):
    model = Transformer(tiny(position), seed=0)
    names = [n for n, _ in model.named_parameters()]
    params = tuple(p.detach().clone().requires_grad_(True) for p in model.parameters())
    ids = torch.tensor([[0, 3, 1, 4, 2, 2], [1, 1, 0, 3, 4, 0]])

    def loss(*ps):
        logits = torch.func.functional_call(model, dict(zip(names, ps)), (ids[:, :-1],))
        return F.cross_entropy(logits.reshape(-1, 5), ids[:, 1:].reshape(-1))

    # fast mode: compares the analytical and numerical Jacobians along random directions, the full
    # Jacobian of about 750 parameters taking a minute per scheme
    with torch_threads(1):
        assert torch.autograd.gradcheck(loss, params, eps=1e-6, atol=1e-7, fast_mode=True)


def test_one_training_step_moves_the_loss_down_along_the_gradient():
    config, tc = tiny("rope"), TrainConfig(context=5, batch_size=4, steps=1, lr=1e-3, warmup=0)
    stream = np.random.default_rng(0).integers(0, 5, 500)
    before = Transformer(config, seed=0)
    after = transformer.train(config, tc, stream, seed=0).model
    windows = transformer.sample_windows(stream, 4, 6, np.random.default_rng([0, 1]))  # the batch it trained on
    assert transformer.position_losses(after, windows).mean() < transformer.position_losses(before, windows).mean()


def test_training_is_deterministic_per_seed_and_records_its_losses():
    config, tc = tiny("learned"), TrainConfig(context=5, batch_size=4, steps=6, warmup=2)
    stream = np.random.default_rng(0).integers(0, 5, 500)
    with torch_threads(1):
        a, b, c = (transformer.train(config, tc, stream, seed=s) for s in (0, 0, 1))
    np.testing.assert_array_equal(a.losses, b.losses)
    assert a.losses.shape == (6,) and not np.array_equal(a.losses, c.losses)
    for p, q in zip(a.model.parameters(), b.model.parameters()):
        assert torch.equal(p, q)


def test_the_largest_allowed_rates_train_to_finite_losses():
    # lr = 1 and weight_decay = 1, the bounds, on the attacker's setting (issue 15): no NaN, no error
    config, tc = tiny("learned"), TrainConfig(context=4, batch_size=2, steps=20, warmup=0, lr=1.0, weight_decay=1.0)
    trained = transformer.train(config, tc, np.arange(200) % 5, seed=0)
    assert np.isfinite(trained.losses).all() and trained.losses.shape == (20,)


def _corrupt(at, scale):
    """An on_step hook that multiplies the head's weights by ``scale`` after step ``at``."""
    def hook(k, model):
        if k == at:
            with torch.no_grad():
                model.head.weight.mul_(scale)
    return hook


def test_a_loss_that_becomes_nan_stops_training_with_the_step():
    config, tc = tiny("learned"), TrainConfig(context=4, batch_size=2, steps=3, warmup=0)
    with pytest.raises(FloatingPointError, match=r"training diverged at step 2 of 3: the loss became nan "
                                                 r"\(learning rate 0.02, weight decay 0.1\); lower the learning rate"):
        transformer.train(config, tc, np.arange(200) % 5, on_step=_corrupt(1, float("nan")))


def test_a_parameter_that_is_not_finite_after_the_last_step_is_divergence():
    config, tc = tiny("learned"), TrainConfig(context=4, batch_size=2, steps=3, warmup=0)
    with pytest.raises(FloatingPointError, match="after the last step the parameter head.weight is not finite"):
        transformer.train(config, tc, np.arange(200) % 5, on_step=_corrupt(3, float("inf")))


def test_a_final_loss_far_above_the_first_is_divergence():
    # head weights × 1e6 before the last step: its loss is finite (about 1e4 nats) but far above the limit,
    # 10 · max(first loss, ln 5) = 10 · ln 5 = 16.09 (the first loss, 1.585, is below ln 5 = 1.609)
    config, tc = tiny("learned"), TrainConfig(context=4, batch_size=2, steps=3, warmup=0)
    with pytest.raises(FloatingPointError, match=r"the final training loss is \S+ nats \(the first was 1.585, the "
                                                 r"limit 16.09; learning rate 0.02\)"):
        transformer.train(config, tc, np.arange(200) % 5, on_step=_corrupt(2, 1e6))


def test_rows_of_the_learned_table_beyond_the_context_are_never_trained():
    config, tc = tiny("learned"), TrainConfig(context=3, batch_size=4, steps=5, warmup=1)
    trained = transformer.train(config, tc, np.random.default_rng(0).integers(0, 5, 300), seed=2)
    start = positional.LearnedPositionTable(6, 8, seed=2, scale=0.02).weight
    table = trained.model.pos.detach().numpy()
    np.testing.assert_array_equal(table[3:], start[3:])
    assert not np.allclose(table[:3], start[:3])


def test_on_step_sees_every_step_and_fine_tuning_starts_from_init():
    config, tc = tiny("rope"), TrainConfig(context=5, batch_size=2, steps=4, warmup=0, lr=1e-3)
    stream = np.random.default_rng(0).integers(0, 5, 200)
    seen = []
    base = transformer.train(config, tc, stream, seed=0, on_step=lambda k, m: seen.append((k, m.training)))
    assert seen == [(1, False), (2, False), (3, False), (4, False)]
    zero = transformer.train(config, replace(tc, steps=0), stream, seed=5, init=base.model)
    for p, q in zip(zero.model.parameters(), base.model.parameters()):
        assert torch.equal(p, q)


def test_position_losses_are_cross_entropies_and_causal():
    model = Transformer(tiny("alibi"), seed=0).eval()
    windows = np.random.default_rng(0).integers(0, 5, (3, 7))
    losses = transformer.position_losses(model, windows, batch_size=2)
    logits = model(torch.as_tensor(windows[:, :-1]))
    expected = F.cross_entropy(logits.reshape(-1, 5), torch.as_tensor(windows[:, 1:]).reshape(-1), reduction="none")
    np.testing.assert_allclose(losses, expected.detach().numpy().reshape(3, 6), atol=1e-14)
    # a window cut short gives the same losses on the positions it keeps
    np.testing.assert_allclose(transformer.position_losses(model, windows[:, :4]), losses[:, :3], atol=1e-14)


def test_a_new_config_keeps_the_trained_parameters():
    model = Transformer(TransformerConfig(position="rope"), seed=0)
    longer = transformer.with_config(model, TransformerConfig(position="rope", rope_base=40_000.0))
    for p, q in zip(model.parameters(), longer.parameters()):
        assert torch.equal(p, q)
    assert float(longer.blocks[0].attn.angles[1, 1]) == pytest.approx(40_000.0 ** -0.25)
    with pytest.raises(ValueError, match="do not fit this config"):
        transformer.with_config(model, TransformerConfig(position="rope", n_layer=2))


def test_attention_maps_are_causal_distributions():
    model = Transformer(tiny("rope", n_layer=2), seed=0)
    maps = transformer.attention_maps(model, np.array([[0, 1, 2, 3], [4, 3, 2, 1]]))
    assert len(maps) == 2 and maps[0].shape == (2, 2, 4, 4)
    np.testing.assert_allclose(maps[1].sum(axis=-1), 1.0)
    assert np.all(np.triu(maps[0], k=1) == 0)
    assert transformer.attention_maps(model, np.array([0, 1, 2]))[0].shape == (2, 3, 3)


def test_sample_windows_are_stretches_of_the_stream():
    stream = np.arange(100)
    windows = transformer.sample_windows(stream, 50, 7, np.random.default_rng(0))
    assert windows.shape == (50, 7)
    np.testing.assert_array_equal(np.diff(windows, axis=1), 1)
    assert windows.min() >= 0 and windows.max() <= 99
    with pytest.raises(ValueError, match="shorter than one window"):
        transformer.sample_windows(np.arange(3), 1, 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="length must be an integer in \\[2, 268435456\\]"):
        transformer.sample_windows(stream, 1, 1, np.random.default_rng(0))


def test_bad_input_is_a_clear_error_not_a_torch_traceback():
    model = Transformer(tiny("learned"))
    with pytest.raises(ValueError, match="window length 7 must be in 1..max_len = 6"):
        model(torch.zeros((1, 7), dtype=torch.int64))
    with pytest.raises(ValueError, match="token id 5 out of range for vocabulary of 5"):
        model(torch.tensor([[0, 5]]))
    with pytest.raises(TypeError, match="ids must be a"):
        model(np.zeros((1, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="out of range for vocabulary of 5"):
        transformer.position_losses(model, np.array([[0, 9, 1]]))
    with pytest.raises(ValueError, match=r"2 <= n <= 7"):
        transformer.position_losses(model, np.zeros((1, 8), dtype=np.int64))
    with pytest.raises(ValueError, match="context 7 is longer than max_len = 6"):
        transformer.train(tiny("none"), TrainConfig(context=7), np.zeros(50, dtype=np.int64))
    with pytest.raises(ValueError, match="seed must be an integer >= 0"):
        Transformer(tiny("none"), seed=-1)
    with pytest.raises(TypeError, match="config must be a TransformerConfig"):
        Transformer({"position": "none"})


@pytest.mark.slow
def test_a_real_model_learns_the_toy_language():
    corpus = toylang.make_corpus(3000, seed=1)
    with torch_threads(1):
        trained = transformer.train(TransformerConfig(position="alibi"), TrainConfig(steps=150), corpus.train)
    assert trained.losses[:10].mean() > 3.0          # about log(34) = 3.5 at the start
    assert trained.losses[-20:].mean() < 1.1         # the bigram limit is 1.163, the floor 0.98


@pytest.mark.parametrize("stream, error, match", [
    ([0.5, 1.5, 2.5], TypeError, "stream must be integers, got dtype float64"),
    (["a", "b", "c"], TypeError, "stream must be integers, got dtype <U1"),
    ([True, False, True], TypeError, "stream must be integers, got dtype bool"),
    ([[0, 1], [2]], ValueError, "stream must be a 1-D array of token ids, got rows of different lengths"),
    ([0, -1, 2], ValueError, "stream token ids must be >= 0, got -1"),
])
def test_sample_windows_refuses_ids_that_are_not_integers(stream, error, match):
    with pytest.raises(error, match=match):
        transformer.sample_windows(stream, 1, 2, np.random.default_rng(0))


def test_sample_windows_takes_a_generator_or_a_seed():
    with pytest.raises(TypeError, match="rng must be an integer >= 0 or a numpy.random.Generator, got 'x'"):
        transformer.sample_windows(np.arange(10), 2, 3, "x")
    np.testing.assert_array_equal(transformer.sample_windows(np.arange(10), 2, 3, 0),
                                  transformer.sample_windows(np.arange(10), 2, 3, np.random.default_rng(0)))


def test_position_losses_of_no_windows_is_a_clear_error():
    model = Transformer(tiny("rope"), seed=0)
    with pytest.raises(ValueError, match=r"windows must hold at least one window \(W >= 1\), got shape \(0, 3\)"):
        transformer.position_losses(model, np.zeros((0, 3), dtype=int))


def test_a_stream_of_time_spans_is_a_type_error():
    with pytest.raises(TypeError) as info:  # NumPy counts timedelta64 as an integer type
        transformer.sample_windows(np.arange(10).astype("m8[s]"), 2, 3, np.random.default_rng(0))
    assert str(info.value) == "stream must be integers, got dtype timedelta64[s]"


@pytest.mark.parametrize("changes, message", [
    (dict(vocab_size=2**20, d_model=2**9, n_head=1), "vocab_size and d_model (token table and head): a result of "
     "shape (1048576, 512) would hold 536870912 entries; at most 268435456 are allowed"),
    (dict(max_len=2**19, d_model=2**10, n_head=1), "max_len and d_model (position table): a result of shape "
     "(524288, 1024) would hold 536870912 entries"),
    (dict(max_len=2**14, n_head=2, d_model=8), "n_head and max_len (causal mask, ALiBi bias): a result of shape "
     "(2, 16384, 16384) would hold 536870912 entries"),
    (dict(d_model=2**12, mlp_ratio=2**5, n_head=1), "mlp_ratio and d_model (MLP matrices): a result of shape "
     "(131072, 4096) would hold 536870912 entries"),
    (dict(n_layer=2**12, d_model=2**7, mlp_ratio=4, n_head=1), "n_layer, d_model and mlp_ratio (the blocks' "
     "matrices): a result of shape (4096, 896, 128) would hold 469762048 entries"),
    (dict(vocab_size=10**12), "vocab_size must be an integer in [1, 268435456], got 1000000000000"),
])
def test_config_refuses_tables_beyond_max_size_before_allocating_them(changes, message):
    # each size was allowed alone (no upper bound) and the product reached PyTorch's allocator
    with pytest.raises(ValueError, match=f"^{re.escape(message)}"):
        TransformerConfig(**changes)


def test_learning_rate_schedule_refuses_a_step_outside_it():
    tc = TrainConfig(steps=110, warmup=10, lr=1.0)
    for bad in (-1, 111, 10**6):  # -1 gave 0.0 (a warm-up below zero), 111 climbed the cosine again: 2.0e-4
        with pytest.raises(ValueError, match=r"^step must be an integer in \[0, 110\] \(0 \.\. steps, "):
            tc.lr_at(bad)
    for bad in (1.5, True, "3"):
        with pytest.raises(TypeError, match=r"^step must be an integer in \[0, 110\]"):
            tc.lr_at(bad)
    assert tc.lr_at(np.int64(60)) == pytest.approx(0.5)
