"""TRE: batched composition equals composing tree by tree; planted compositional targets are reconstructed."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from natcomp.sst import parse_sst_tree
from natcomp.trees import parse_tree
from natcomp.tre import TreeTable, TreSettings, tree_reconstruction_error
from natcomp.tre.reconstruction import UNKNOWN, held_out_reconstruction_error
from natcomp.tre.reconstruction import _Composer, _DeviceTable

WORDS = ["good", "bad", "film", "plot", "not", "very", "the", "is", "dull", "fun", "a", "but"]


def random_trees(count: int, seed: int) -> list:
    rng = np.random.default_rng(seed)

    def build(words):
        if len(words) == 1:
            return f"(2 {words[0]})"
        cut = int(rng.integers(1, len(words)))
        return f"(2 {build(words[:cut])} {build(words[cut:])})"

    return [parse_sst_tree(build(list(rng.choice(WORDS, size=int(rng.integers(1, 9)))))) for _ in range(count)]


def compose_recursively(tree, vectors, left, right, bias, linear):
    if tree.word is not None:
        return vectors[tree.word]
    parts = [compose_recursively(child, vectors, left, right, bias, linear) for child in tree.children]
    current = parts[0]
    for part in parts[1:]:
        current = left @ current + right @ part + bias if linear else current + part
    return current


@pytest.mark.parametrize("composition", ["add", "linear"])
def test_batched_composition_equals_tree_by_tree(composition):
    # a ternary node is composed left to right
    trees = random_trees(40, seed=3) + [parse_tree("(2 (2 a) (2 film) (2 (2 not) (2 fun) (2 but)))")]
    table = TreeTable.build(trees)
    settings = TreSettings(composition=composition)
    torch.manual_seed(0)
    composer = _Composer(len(table.vocabulary), 5, settings)
    if composition == "linear":  # move away from the identity so order matters
        with torch.no_grad():
            composer.left.add_(0.3 * torch.randn(5, 5))
            composer.right.add_(0.3 * torch.randn(5, 5))
            composer.bias.add_(0.1)
    batched = composer(_DeviceTable.of(table, torch.device("cpu"))).detach().numpy()
    weights = composer.primitives.weight.detach().numpy()
    vectors = {word: weights[i] for i, word in enumerate(table.vocabulary)}
    left, right, bias = (
        (composer.left.detach().numpy(), composer.right.detach().numpy(), composer.bias.detach().numpy())
        if composition == "linear"
        else (None, None, None)
    )
    for row, tree in zip(batched, trees):
        expected = compose_recursively(tree, vectors, left, right, bias, composition == "linear")
        np.testing.assert_allclose(row, expected, rtol=1e-4, atol=1e-5)


def test_linear_composition_gradients_equal_autograd_through_the_levels():
    # the hand-written backward pass against autograd over a plain level-by-level forward pass
    # a one-word tree too: its root is a word, not a composed node
    trees = random_trees(25, seed=11) + [parse_tree("(2 (2 a) (2 film) (2 (2 not) (2 fun) (2 but)))")]
    trees.insert(3, parse_tree("(3 fun)"))
    table = TreeTable.build(trees)
    on_device = _DeviceTable.of(table, torch.device("cpu"))
    torch.manual_seed(0)
    composer = _Composer(len(table.vocabulary), 4, TreSettings(composition="linear")).double()
    with torch.no_grad():
        composer.left.add_(0.3 * torch.randn(4, 4, dtype=torch.float64))
        composer.right.add_(0.3 * torch.randn(4, 4, dtype=torch.float64))
        composer.bias.add_(0.1)
    weights = torch.randn(len(trees), 4, dtype=torch.float64)

    def reference():
        nodes = composer.primitives(torch.as_tensor(table.leaf_words))
        for left, right in table.levels:
            left, right = torch.as_tensor(left), torch.as_tensor(right)
            composed = nodes[left] @ composer.left.T + nodes[right] @ composer.right.T + composer.bias
            nodes = torch.cat([nodes, composed])
        return nodes[torch.as_tensor(table.roots)]

    parameters = [composer.primitives.weight, composer.left, composer.right, composer.bias]
    expected = torch.autograd.grad((reference() * weights).sum(), parameters)
    got = torch.autograd.grad((composer(on_device) * weights).sum(), parameters)
    for mine, theirs in zip(got, expected):
        torch.testing.assert_close(mine, theirs)
    torch.testing.assert_close(composer(on_device), reference())


def test_levels_are_height_ordered_and_roots_point_into_the_table():
    trees = random_trees(30, seed=1)
    table = TreeTable.build(trees)
    assert table.n_nodes == sum(len(t.leaves()) for t in trees) + sum(len(t.leaves()) - 1 for t in trees)
    seen = len(table.leaf_words)
    for left, right in table.levels:  # children are always computed before their parent's level
        assert left.max() < seen and right.max() < seen
        seen += len(left)
    assert table.roots.max() < table.n_nodes


def test_additive_targets_are_reconstructed_better_than_random_targets():
    # More sentences than word types: random targets cannot be fitted by sums of word vectors.
    trees = random_trees(300, seed=5)
    table = TreeTable.build(trees)
    rng = np.random.default_rng(0)
    word_vectors = {word: rng.normal(size=16) for word in table.vocabulary}
    additive = np.stack([sum(word_vectors[w] for w in tree.leaves()) for tree in trees])
    random_targets = rng.normal(size=additive.shape)
    settings = TreSettings(steps=300)
    planted = tree_reconstruction_error(additive, trees, settings)
    noise = tree_reconstruction_error(random_targets, trees, settings)
    assert planted.errors.mean() < 0.02
    assert noise.errors.mean() > 10 * planted.errors.mean()
    assert planted.loss_history[-1] < planted.loss_history[0]
    assert planted.errors.shape == (300,)


def test_linear_composition_fits_order_dependent_targets_better_than_addition():
    trees = random_trees(200, seed=7)
    rng = np.random.default_rng(1)
    table = TreeTable.build(trees)
    vectors = {word: rng.normal(size=8) for word in table.vocabulary}
    left, right = rng.normal(size=(8, 8)) / 3, rng.normal(size=(8, 8)) / 3
    targets = np.stack([compose_recursively(t, vectors, left, right, np.zeros(8), True) for t in trees])
    added = tree_reconstruction_error(targets, trees, TreSettings(steps=150))
    linear = tree_reconstruction_error(targets, trees, TreSettings(steps=150, composition="linear"))
    assert linear.errors.mean() < added.errors.mean()


def test_same_seed_same_errors_and_input_order_kept():
    trees = random_trees(50, seed=2)
    targets = np.random.default_rng(4).normal(size=(50, 6))
    first = tree_reconstruction_error(targets, trees, TreSettings(steps=20, seed=3))
    second = tree_reconstruction_error(targets, trees, TreSettings(steps=20, seed=3))
    np.testing.assert_array_equal(first.errors, second.errors)
    reversed_result = tree_reconstruction_error(targets[::-1], trees[::-1], TreSettings(steps=20, seed=3))
    assert reversed_result.errors.shape == (50,)


def test_bad_arguments():
    trees = random_trees(3, seed=0)
    with pytest.raises(ValueError, match="targets"):
        tree_reconstruction_error(np.zeros((2, 4)), trees)
    with pytest.raises(ValueError, match="composition"):
        TreSettings(composition="multiply")


def test_held_out_errors_tell_additive_targets_from_random_ones():
    # primitives fitted on training phrases; errors on other trees, nothing refitted
    trees = random_trees(400, seed=8)
    table = TreeTable.build(trees)
    rng = np.random.default_rng(2)
    vectors = {word: rng.normal(size=12) for word in table.vocabulary}
    additive = np.stack([sum(vectors[w] for w in tree.leaves()) for tree in trees])
    settings = TreSettings(steps=200)
    planted = held_out_reconstruction_error(additive[:300], trees[:300], additive[300:], trees[300:], settings)
    random_targets = rng.normal(size=additive.shape)
    noise = held_out_reconstruction_error(
        random_targets[:300], trees[:300], random_targets[300:], trees[300:], settings
    )
    assert planted.errors.shape == (100,) and planted.unknown_share == 0.0
    assert planted.errors.mean() < 0.05
    assert noise.errors.mean() > 0.5  # random targets of unseen sentences cannot be composed
    assert noise.training_error < noise.errors.mean()


def test_held_out_unseen_and_rare_words_share_the_unknown_vector():
    train = [parse_sst_tree("(2 (2 good) (2 film))"), parse_sst_tree("(2 (2 good) (2 plot))")]
    held_out = [parse_sst_tree("(2 (2 good) (2 story))")]
    result = held_out_reconstruction_error(
        np.ones((2, 3)), train, np.ones((1, 3)), held_out, TreSettings(steps=5), min_count=2
    )
    assert result.vocabulary == ["good", UNKNOWN]  # film and plot occur once: rare
    assert result.unknown_share == pytest.approx(0.5)


def test_cosine_distance_is_torchs_written_out():
    from natcomp.tre.reconstruction import _cosine_distance

    rng = np.random.default_rng(0)
    a = torch.as_tensor(rng.normal(size=(6, 5)) * np.array([[1], [10], [0.1], [1], [1], [0]]), dtype=torch.float32)
    b = torch.as_tensor(rng.normal(size=(6, 5)), dtype=torch.float32)
    b[3] = -2 * a[3]  # opposite: distance 2
    expected = 1 - torch.nn.functional.cosine_similarity(a, b, dim=1)
    torch.testing.assert_close(_cosine_distance(a, b), expected)
    assert float(_cosine_distance(a, b)[3]) == pytest.approx(2.0) and float(_cosine_distance(a, b)[5]) == 1.0
