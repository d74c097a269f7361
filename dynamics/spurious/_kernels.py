"""The numba kernels of the spurious-correlation theory: the minibatch SGD loop of the Chapter 8 linear toy
(Pezeshki (thesis) §8.4; torch ``SGD`` semantics, optional online group-DRO weighting) and its per-epoch
group accuracies. The checked Python entry point is :func:`dynamics.spurious.train_balancing_toy`."""
import math

import numba as nb
import numpy as np


@nb.njit(cache=True)
def sigmoid(f):
    if f >= 0.0:
        return 1.0 / (1.0 + math.exp(-f))
    e = math.exp(f)
    return e / (1.0 + e)


@nb.njit(cache=True)
def bce_with_logits(f, y):
    """softplus(f) − y f, stably."""
    return max(f, 0.0) - y * f + math.log1p(math.exp(-abs(f)))


@nb.njit(cache=True)
def group_accuracy_into(x_eval, cols, y, groups, counts, w, out):
    """Group accuracies of f = Σ_j x_eval[i, j] w[cols[j]] (x_eval holds only the columns ``cols``)."""
    correct = np.zeros(counts.shape[0])
    for i in range(x_eval.shape[0]):
        f = 0.0
        for j in range(cols.shape[0]):
            f += x_eval[i, j] * w[cols[j]]
        pred = 1 if f > 0.0 else 0
        if pred == y[i]:
            correct[groups[i]] += 1.0
    for g in range(counts.shape[0]):
        out[g] = correct[g] / counts[g]


@nb.njit(cache=True)
def train_epochs(xs, y, groups, w, v, has_velocity, order, offsets, batch_size, learning_rate, momentum,
                  weight_decay, use_gdro, log_q, step_size, x_val, val_cols, val_y, val_g, val_counts, x_test,
                  test_cols, test_y, test_g, test_counts, val_acc, test_acc, best, best_w, first_row):
    """Train the epochs whose index orders are order[offsets[e]:offsets[e+1]], recording group accuracies in rows
    first_row + e. ``has_velocity[0]`` carries torch's first-step rule; ``best[0]`` the best validation WGA so
    far (its weights in best_w)."""
    n_features = xs.shape[1]
    grad = np.empty(n_features)
    residual = np.empty(batch_size)
    group_loss = np.zeros(log_q.shape[0])
    group_count = np.zeros(log_q.shape[0])
    for e in range(offsets.shape[0] - 1):
        start, stop = offsets[e], offsets[e + 1]
        for b0 in range(start, stop, batch_size):
            b1 = min(b0 + batch_size, stop)
            nb_ = b1 - b0
            for t in range(nb_):
                i = order[b0 + t]
                f = np.dot(xs[i], w)
                residual[t] = sigmoid(f) - y[i]
                if use_gdro:
                    g = groups[i]
                    group_loss[g] += bce_with_logits(f, y[i])
                    group_count[g] += 1.0
            if use_gdro:
                for g in range(log_q.shape[0]):
                    if group_count[g] > 0:
                        log_q[g] += step_size * group_loss[g] / group_count[g]
                top = log_q.max()
                total = 0.0
                for g in range(log_q.shape[0]):
                    total += math.exp(log_q[g] - top)
                norm = top + math.log(total)
                for g in range(log_q.shape[0]):
                    log_q[g] -= norm
                for t in range(nb_):
                    g = groups[order[b0 + t]]
                    residual[t] *= math.exp(log_q[g]) / group_count[g]
                group_loss[:] = 0.0
                group_count[:] = 0.0
            else:
                for t in range(nb_):
                    residual[t] /= nb_
            for j in range(n_features):
                grad[j] = weight_decay * w[j]
            for t in range(nb_):
                row = xs[order[b0 + t]]
                r = residual[t]
                for j in range(n_features):
                    grad[j] += r * row[j]
            if has_velocity[0]:
                for j in range(n_features):
                    v[j] = momentum * v[j] + grad[j]
            else:
                for j in range(grad.shape[0]):  # element by element: a slice assignment compiles numba's
                    v[j] = grad[j]  # shape-error formatting
                has_velocity[0] = True
            for j in range(n_features):
                w[j] -= learning_rate * v[j]
        row_index = first_row + e
        group_accuracy_into(x_val, val_cols, val_y, val_g, val_counts, w, val_acc[row_index])
        group_accuracy_into(x_test, test_cols, test_y, test_g, test_counts, w, test_acc[row_index])
        worst = val_acc[row_index].min()
        if worst >= best[0]:
            best[0] = worst
            for j in range(w.shape[0]):
                best_w[j] = w[j]
