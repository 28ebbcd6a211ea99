"""Tree Reconstruction Error (Andreas, 2019) of sentence embeddings over their SST trees.

For every sentence ``x_i`` with target embedding ``f(x_i)`` and tree ``D(x_i)``, word vectors
``eta`` (one per word type, shared across the corpus) and, optionally, the parameters of the
composition function are learned with RMSprop so that composing the word vectors along the
tree comes close to the target in cosine distance:

    eta* = argmin_eta  sum_i  delta(f(x_i), f_eta(D(x_i))),   delta(a, b) = 1 - cos(a, b)

TRE of a sentence is ``delta(f(x_i), f_eta*(D(x_i)))`` after training.

Composition: ``add`` (``a + b``; Andreas' choice for word2vec bigrams, and the default) or
``linear`` (``W_left a + W_right b + bias``, learned jointly; both maps start as the identity
and the bias at zero, so training starts from addition). A node with more than two children is
composed left to right; a node with one child passes it on.

Batched over trees: all trees are flattened into one node table and nodes are composed one
height level at a time (leaves, then nodes whose children are all leaves, ...), so a training
step is ``height`` tensor operations whatever the number of trees; on a GPU when one is
available.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import torch

from natcomp.trees import Tree

__all__ = [
    "COMPOSITIONS",
    "INITIALISATIONS",
    "UNKNOWN",
    "HeldOutResult",
    "TreeTable",
    "TreSettings",
    "TreResult",
    "held_out_reconstruction_error",
    "tree_reconstruction_error",
]

COMPOSITIONS = ("add", "linear")
#: The word type that stands for words unseen in training (held-out setting).
UNKNOWN = "<unk>"
INITIALISATIONS = ("zeros", "normal")


@dataclass(frozen=True)
class TreSettings:
    """How the primitives are learned.

    Defaults follow Andreas' released code (``evals2.py``: RMSprop, lr 0.01, 400 full-batch
    steps) with the N(0, 1) initialisation his word-vector notebook uses: from all-zero
    vectors (``evals2``' default) every word of a sentence gets the same update and training
    stalls at the first step (measured: mean cosine distance 0.31 on targets that are exact
    sums of word vectors, against 0.0003 from N(0, 1)).
    """

    composition: str = "add"
    steps: int = 400
    learning_rate: float = 0.01
    initialisation: str = "normal"
    lowercase: bool = False
    seed: int = 0
    device: str = "auto"

    def __post_init__(self) -> None:
        if self.composition not in COMPOSITIONS:
            raise ValueError(f"composition must be one of {', '.join(COMPOSITIONS)}, not {self.composition!r}")
        if self.initialisation not in INITIALISATIONS:
            raise ValueError(f"initialisation must be one of {', '.join(INITIALISATIONS)}, not {self.initialisation!r}")
        if self.steps < 1:
            raise ValueError(f"steps must be at least 1, not {self.steps}")


@dataclass
class TreResult:
    """Per-sentence TRE (input order), the word types learned and the loss per step."""

    errors: np.ndarray
    vocabulary: list[str]
    loss_history: list[float] = field(default_factory=list)


@dataclass
class TreeTable:
    """Trees flattened into binary composition steps, grouped by height.

    Node ids: ``0 .. n_leaves-1`` are the leaves (their word ids in ``leaf_words``); composed
    nodes follow. ``levels[k]`` holds ``(left, right)`` child ids of the composed nodes of
    height ``k + 1`` (ids of the new nodes are consecutive, in level order). ``roots`` is each
    tree's node id.
    """

    leaf_words: np.ndarray
    levels: list[tuple[np.ndarray, np.ndarray]]
    roots: np.ndarray
    vocabulary: list[str]
    leaf_trees: np.ndarray

    @classmethod
    def build(
        cls, trees: Sequence[Tree], *, lowercase: bool = False, vocabulary: Sequence[str] | None = None
    ) -> TreeTable:
        """Flatten ``trees``; word ids in order of first occurrence, or those of a fixed
        ``vocabulary`` whose last entry, :data:`UNKNOWN`, stands for every word not in it."""
        words: dict[str, int] = {}
        fixed = None if vocabulary is None else {word: index for index, word in enumerate(vocabulary)}
        if fixed is not None and fixed.get(UNKNOWN) != len(vocabulary) - 1:
            raise ValueError(f"a fixed vocabulary must end with {UNKNOWN!r}")
        leaf_words: list[int] = []
        leaf_trees: list[int] = []
        # composed nodes: (height, left id, right id), temporary ids until sorted by height
        pending: list[tuple[int, int, int]] = []
        roots: list[tuple[str, int]] = []

        # iterative post-order to cope with deep trees
        for tree_index, tree in enumerate(trees):
            result: dict[int, tuple[str, int, int]] = {}
            stack: list[tuple[Tree, bool]] = [(tree, False)]
            while stack:
                node, expanded = stack.pop()
                if node.word is not None or not node.children:
                    if node.word is None:
                        raise ValueError("a tree for TRE needs a word under every leaf node")
                    word = node.word.lower() if lowercase else node.word
                    if fixed is None:
                        leaf_words.append(words.setdefault(word, len(words)))
                    else:
                        leaf_words.append(fixed.get(word, fixed[UNKNOWN]))
                    leaf_trees.append(tree_index)
                    result[id(node)] = ("leaf", len(leaf_words) - 1, 0)
                elif not expanded:
                    stack.append((node, True))
                    stack.extend((child, False) for child in reversed(node.children))
                else:
                    parts = [result.pop(id(child)) for child in node.children]
                    current = parts[0]
                    for right in parts[1:]:
                        height = max(current[2], right[2]) + 1
                        pending.append((height, _ref(current), _ref(right)))
                        current = ("node", len(pending) - 1, height)
                    result[id(node)] = current
            (root,) = result.values()
            roots.append((root[0], root[1]))
        n_leaves = len(leaf_words)
        order = sorted(range(len(pending)), key=lambda index: pending[index][0])
        new_id = {old: n_leaves + rank for rank, old in enumerate(order)}

        def resolve(reference: int) -> int:
            return reference if reference >= 0 else new_id[-reference - 1]

        levels: list[tuple[np.ndarray, np.ndarray]] = []
        heights = [pending[index][0] for index in order]
        start = 0
        while start < len(order):
            end = start
            while end < len(order) and heights[end] == heights[start]:
                end += 1
            chunk = [pending[index] for index in order[start:end]]
            levels.append(
                (
                    np.array([resolve(left) for _, left, _ in chunk], dtype=np.int64),
                    np.array([resolve(right) for _, _, right in chunk], dtype=np.int64),
                )
            )
            start = end
        root_ids = np.array([index if kind == "leaf" else new_id[index] for kind, index in roots], dtype=np.int64)
        vocabulary = sorted(words, key=words.__getitem__) if fixed is None else list(vocabulary)
        return cls(
            np.array(leaf_words, dtype=np.int64), levels, root_ids, vocabulary, np.array(leaf_trees, dtype=np.int64)
        )

    @property
    def n_nodes(self) -> int:
        return len(self.leaf_words) + sum(len(left) for left, _ in self.levels)


def _ref(part: tuple[str, int, int]) -> int:
    """Leaf ids stay as they are (>= 0); composed nodes are referenced as -(pending index) - 1."""
    kind, index, _ = part
    return index if kind == "leaf" else -index - 1


class _Composer(torch.nn.Module):
    def __init__(self, vocabulary_size: int, dimension: int, settings: TreSettings):
        super().__init__()
        self.primitives = torch.nn.Embedding(vocabulary_size, dimension)
        if settings.initialisation == "zeros":
            torch.nn.init.zeros_(self.primitives.weight)
        else:
            torch.nn.init.normal_(self.primitives.weight)
        self.linear = settings.composition == "linear"
        if self.linear:
            self.left = torch.nn.Parameter(torch.eye(dimension))
            self.right = torch.nn.Parameter(torch.eye(dimension))
            self.bias = torch.nn.Parameter(torch.zeros(dimension))

    def forward(self, table: _DeviceTable) -> torch.Tensor:
        if not self.linear:
            # Addition is associative: a tree composes to the sum of its words' vectors, i.e.
            # (word counts per tree) @ primitives, one sparse product instead of one step per level.
            return torch.sparse.mm(table.word_counts, self.primitives.weight)
        return _LinearTrees.apply(self.primitives.weight, self.left, self.right, self.bias, table)


class _LinearTrees(torch.autograd.Function):
    """Roots of all trees under ``W_left a + W_right b + bias``, with a hand-written backward pass.

    Autograd over per-level gathers and concatenations allocates a gradient the size of all
    nodes so far for every level (work of order levels x nodes per step); here the forward
    pass fills one buffer of composed nodes level by level and the backward pass walks the
    levels top down accumulating into one gradient buffer (work of order nodes per step).
    Words are not copied into that buffer: a child that is a word is mapped through
    ``W_left``/``W_right`` once per word type that occurs on that side (about half the
    children are words, of far fewer types), and its gradient is summed per such type. The
    weight gradients, which no level depends on, are one matrix product per side at the end
    rather than one per level.
    """

    @staticmethod
    def forward(ctx, primitives, left, right, bias, table):
        composed = primitives.new_empty((table.n_composed, primitives.shape[1]))
        weights = (left, right)
        mapped = [primitives[words] @ weight.T for words, weight in zip(table.side_words, weights)]
        for level, start in zip(table.children, table.starts):
            out = composed[start : start + level[0].size]
            out.copy_(bias.expand_as(out))
            for side, weight, words in zip(level, weights, mapped):
                out.index_add_(0, side.word_rows, words[side.word_slots])
                out.index_add_(0, side.inner_rows, composed[side.inner_ids] @ weight.T)
        roots = primitives.new_empty((table.n_trees, primitives.shape[1]))
        roots[table.composed_roots] = composed[table.composed_root_ids]
        roots[table.word_roots] = primitives[table.word_root_words]
        ctx.table = table
        ctx.save_for_backward(primitives, left, right, composed)
        return roots

    @staticmethod
    def backward(ctx, grad_roots):
        primitives, left, right, composed = ctx.saved_tensors
        table = ctx.table
        weights = (left, right)
        grad = torch.zeros_like(composed)
        grad[table.composed_root_ids] = grad_roots[table.composed_roots]  # one root per tree
        for level, start in zip(reversed(table.children), reversed(table.starts)):
            upstream = grad[start : start + level[0].size]
            for side, weight in zip(level, weights):
                grad.index_add_(0, side.inner_ids, upstream[side.inner_rows] @ weight)
        grad_bias = grad.sum(dim=0)
        grad_primitives = torch.zeros_like(primitives)
        grad_primitives.index_add_(0, table.word_root_words, grad_roots[table.word_roots])  # one-word trees
        grad_weights = []
        for words, inner, word_children, weight in zip(
            table.side_words, table.side_inner, table.side_word_children, weights
        ):
            grad_weight = grad[inner.parents].T @ composed[inner.children]
            # upstream gradients of the word children, summed per word type of this side
            grad_mapped = primitives.new_zeros((len(words), primitives.shape[1]))
            grad_mapped.index_add_(0, word_children.children, grad[word_children.parents])
            grad_weight.addmm_(grad_mapped.T, primitives[words])
            grad_primitives.index_add_(0, words, grad_mapped @ weight)
            grad_weights.append(grad_weight)
        return grad_primitives, grad_weights[0], grad_weights[1], grad_bias, None


@dataclass
class _Side:
    """One side (left or right) of one level's composed nodes: the rows whose child is a
    word, those words' slots in the side's word types, the rows whose child is a composed
    node, and those nodes' ids in the composed buffer."""

    word_rows: torch.Tensor
    word_slots: torch.Tensor
    inner_rows: torch.Tensor
    inner_ids: torch.Tensor

    @property
    def size(self) -> int:
        return len(self.word_rows) + len(self.inner_rows)


@dataclass
class _Edges:
    """Parent -> child edges of one side over all levels (ids in the composed buffer; a word
    child's id is its slot in the side's word types)."""

    parents: torch.Tensor
    children: torch.Tensor


@dataclass
class _DeviceTable:
    word_counts: torch.Tensor
    n_trees: int
    n_composed: int
    # trees whose root is a composed node, and those nodes; trees of one word, and that word
    composed_roots: torch.Tensor
    composed_root_ids: torch.Tensor
    word_roots: torch.Tensor
    word_root_words: torch.Tensor
    starts: list[int] = field(default_factory=list)
    children: list[tuple[_Side, _Side]] = field(default_factory=list)
    # per side (left, right): the word types that occur as that side's child, and all edges
    side_words: tuple[torch.Tensor, ...] = ()
    side_inner: tuple[_Edges, ...] = ()
    side_word_children: tuple[_Edges, ...] = ()

    @classmethod
    def of(cls, table: TreeTable, device: torch.device) -> _DeviceTable:
        def tensor(array: np.ndarray) -> torch.Tensor:
            return torch.as_tensor(np.ascontiguousarray(array, dtype=np.int64), device=device)

        counts = torch.sparse_coo_tensor(
            torch.stack([tensor(table.leaf_trees), tensor(table.leaf_words)]),
            torch.ones(len(table.leaf_words), device=device),
            (len(table.roots), len(table.vocabulary)),
            check_invariants=True,
        ).coalesce()
        n_leaves = len(table.leaf_words)
        starts, start = [], 0
        for left, _ in table.levels:  # the ids of a level's new nodes are consecutive
            starts.append(start)
            start += len(left)
        children, side_words, side_inner, side_word_children = [], [], [], []
        for side in (0, 1):
            ids = [level[side] for level in table.levels]
            all_ids = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
            parents = np.concatenate([np.arange(len(i)) + s for i, s in zip(ids, starts)]) if ids else all_ids
            is_word = all_ids < n_leaves
            words, slots = np.unique(table.leaf_words[all_ids[is_word]], return_inverse=True)
            side_words.append(tensor(words))
            side_inner.append(_Edges(tensor(parents[~is_word]), tensor(all_ids[~is_word] - n_leaves)))
            side_word_children.append(_Edges(tensor(parents[is_word]), tensor(slots)))
            slot_of = np.zeros(len(all_ids), dtype=np.int64)
            slot_of[is_word] = slots
            per_level, offset = [], 0
            for level_ids in ids:
                word = level_ids < n_leaves
                rows = np.arange(len(level_ids))
                level_slots = slot_of[offset : offset + len(level_ids)][word]
                per_level.append(
                    _Side(
                        tensor(rows[word]),
                        tensor(level_slots),
                        tensor(rows[~word]),
                        tensor(level_ids[~word] - n_leaves),
                    )
                )
                offset += len(level_ids)
            children.append(per_level)
        is_composed = table.roots >= n_leaves
        trees = np.arange(len(table.roots))
        return cls(
            word_counts=counts,
            n_trees=len(table.roots),
            n_composed=start,
            composed_roots=tensor(trees[is_composed]),
            composed_root_ids=tensor(table.roots[is_composed] - n_leaves),
            word_roots=tensor(trees[~is_composed]),
            word_root_words=tensor(table.leaf_words[table.roots[~is_composed]]),
            starts=starts,
            children=list(zip(*children)),
            side_words=tuple(side_words),
            side_inner=tuple(side_inner),
            side_word_children=tuple(side_word_children),
        )


def _device(prefer: str) -> torch.device:
    try:
        from natcomp.hf import device as hf_device
    except ImportError:  # natcomp.hf not importable (optional dependencies): same rule
        if prefer == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        return torch.device(prefer)
    return hf_device(prefer)


def _cosine_distance(composed: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """1 - cos per row, ``a.b / max(|a| |b|, 1e-8)`` as torch's cosine_similarity, written out:
    on the CPU its backward pass took 2.5x as long (0.67 s against 0.27 s for 43,650 x 384)."""
    norms = (composed.norm(dim=1) * target.norm(dim=1)).clamp_min(1e-8)
    return 1 - (composed * target).sum(dim=1) / norms


def _fit(
    table: TreeTable, targets: np.ndarray, settings: TreSettings, log: logging.Logger | None
) -> tuple[_Composer, _DeviceTable, torch.Tensor, list[float]]:
    """Full-batch RMSprop on the summed cosine distance of the table's roots to ``targets``."""
    device = _device(settings.device)
    generator_state = torch.random.get_rng_state()
    torch.manual_seed(settings.seed)
    try:
        model = _Composer(len(table.vocabulary), targets.shape[1], settings).to(device)
    finally:
        torch.random.set_rng_state(generator_state)
    on_device = _DeviceTable.of(table, device)
    target = torch.as_tensor(targets, device=device)
    optimiser = torch.optim.RMSprop(model.parameters(), lr=settings.learning_rate)
    history: list[float] = []
    for step in range(settings.steps):
        optimiser.zero_grad(set_to_none=True)
        distance = _cosine_distance(model(on_device), target)
        loss = distance.sum()
        loss.backward()
        optimiser.step()
        history.append(float(loss.detach()))
        if log is not None and (step + 1) % max(1, settings.steps // 10) == 0:
            log.info("TRE step %d/%d: mean cosine distance %.4f", step + 1, settings.steps, history[-1] / len(targets))
    return model, on_device, target, history


def _errors(model: _Composer, on_device: _DeviceTable, target: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        errors = _cosine_distance(model(on_device), target)
    return errors.cpu().numpy().astype(np.float64)


def _check_targets(targets: np.ndarray, trees: Sequence[Tree], what: str) -> np.ndarray:
    targets = np.asarray(targets, dtype=np.float32)
    if targets.ndim != 2 or targets.shape[0] != len(trees):
        raise ValueError(f"{what} must be [number of trees = {len(trees)}, dimension], not {list(targets.shape)}")
    if not len(trees):
        raise ValueError("no trees: TRE needs at least one sentence")
    return targets


def tree_reconstruction_error(
    targets: np.ndarray,
    trees: Sequence[Tree],
    settings: TreSettings = TreSettings(),
    *,
    log: logging.Logger | None = None,
) -> TreResult:
    """Learn primitives for ``trees`` against ``targets`` (one row per tree); TRE per tree.

    ``targets`` is ``[n_trees, dimension]``. Full-batch RMSprop on the summed cosine
    distance, ``settings.steps`` steps; the errors are those of the final parameters.
    """
    targets = _check_targets(targets, trees, "targets")
    table = TreeTable.build(trees, lowercase=settings.lowercase)
    model, on_device, target, history = _fit(table, targets, settings, log)
    return TreResult(_errors(model, on_device, target), table.vocabulary, history)


@dataclass
class HeldOutResult:
    """Held-out TRE per evaluated tree (input order) and what the fit saw.

    ``training_error``: mean TRE over the training targets; ``unknown_share``: the share of
    the evaluated trees' words that were unseen (or rare) in training and composed as
    :data:`UNKNOWN`.
    """

    errors: np.ndarray
    vocabulary: list[str]
    training_error: float
    unknown_share: float
    loss_history: list[float] = field(default_factory=list)


def held_out_reconstruction_error(
    train_targets: np.ndarray,
    train_trees: Sequence[Tree],
    eval_targets: np.ndarray,
    eval_trees: Sequence[Tree],
    settings: TreSettings = TreSettings(),
    *,
    min_count: int = 2,
    counted_trees: Sequence[Tree] | None = None,
    log: logging.Logger | None = None,
) -> HeldOutResult:
    """TRE with the primitives fitted on one set of trees and the errors taken on another.

    The primitives (and the composition's parameters) are learned on ``train_trees``
    against ``train_targets`` exactly as in :func:`tree_reconstruction_error`; then every
    tree of ``eval_trees`` is composed with them, nothing refitted, and its TRE is the
    cosine distance to its row of ``eval_targets``. Word types seen fewer than
    ``min_count`` times in ``counted_trees`` (default: the training trees) share one vector,
    :data:`UNKNOWN`, which also stands for every evaluated word unseen in training. When the
    training trees are the distinct phrases of a corpus, pass its sentences as
    ``counted_trees``: in the phrase list every word of a sentence of two or more words occurs
    at least twice (as its own phrase and in its parent), so no word would fall under
    ``min_count`` 2 and :data:`UNKNOWN` would keep its random initial vector.
    """
    train_targets = _check_targets(train_targets, train_trees, "train_targets")
    eval_targets = _check_targets(eval_targets, eval_trees, "eval_targets")
    if eval_targets.shape[1] != train_targets.shape[1]:
        raise ValueError(f"dimension {eval_targets.shape[1]} of eval_targets differs from {train_targets.shape[1]}")

    def word(leaf: str) -> str:
        return leaf.lower() if settings.lowercase else leaf

    counts: dict[str, int] = {}
    for tree in train_trees if counted_trees is None else counted_trees:
        for leaf in tree.leaves():
            counts[word(leaf)] = counts.get(word(leaf), 0) + 1
    vocabulary = [w for w, count in counts.items() if count >= min_count and w != UNKNOWN] + [UNKNOWN]
    train_table = TreeTable.build(train_trees, lowercase=settings.lowercase, vocabulary=vocabulary)
    model, _, train_target, history = _fit(train_table, train_targets, settings, log)
    train_errors = _errors(model, _DeviceTable.of(train_table, train_target.device), train_target)
    eval_table = TreeTable.build(eval_trees, lowercase=settings.lowercase, vocabulary=vocabulary)
    eval_target = torch.as_tensor(eval_targets, device=train_target.device)
    errors = _errors(model, _DeviceTable.of(eval_table, eval_target.device), eval_target)
    unknown = float(np.mean(eval_table.leaf_words == len(vocabulary) - 1))
    return HeldOutResult(errors, vocabulary, float(train_errors.mean()), unknown, history)
