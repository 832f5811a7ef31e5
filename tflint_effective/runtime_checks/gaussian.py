"""KL divergence between diagonal Gaussians, computed from log-variances."""
import numpy as np
import tensorflow as tf

from . import _arguments


def gaussian_kl(q, p=(0.0, 0.0), axis=-1, keepdims=False, name=None):
    """KL(q || p) between diagonal Gaussians given as ``(mean, log_variance)`` pairs.

    ``p`` defaults to the standard normal; the per-dimension divergences are
    summed over ``axis`` (an int, a list, a tensor, or None for all
    elements).  Per dimension it computes
    ``0.5 * (expm1(r) - r + (mean_q - mean_p)**2 * exp(-log_var_p))`` with
    ``r = log_var_q - log_var_p``: no variance is formed, so log-variances of
    any size stay finite where the divergence is (``exp`` of a log-variance
    overflows above 88.7 in float32, 11.1 in float16).  Half-precision
    inputs are computed in float32 and the result rounded back.
    ``tfp.distributions.kl_divergence`` of two ``MultivariateNormalDiag``
    is the TF Probability counterpart (it takes scales, not log-variances).

    Special values: equal means contribute exactly 0 whatever ``log_var_p``,
    with zero gradients for that term (no ``0 * inf``); a divergence too
    large for the dtype is ``+inf``, as are ``log_var_p = -inf`` and
    ``log_var_q = -inf`` (point masses); NaN inputs, and equal infinite
    log-variances (an undefined ratio), give NaN.
    """
    op = "gaussian_kl"
    q_mean, q_log_var = _pair(op, "q", q, None)
    p_mean, p_log_var = _pair(op, "p", p, q_mean.dtype)
    _arguments.broadcastable(op, q_mean=q_mean, q_log_variance=q_log_var, p_mean=p_mean,
                             p_log_variance=p_log_var)
    keepdims = _arguments.keepdims(op, keepdims)
    dtype = q_mean.dtype
    with tf.name_scope(name or op):
        work = _arguments.compute_dtype(dtype)
        per_dim = _per_dimension(*(tf.cast(t, work) for t in (q_mean, q_log_var, p_mean, p_log_var)))
        axis = _arguments.axes(op, axis, per_dim.shape.rank)
        # halve before summing: a sum of terms near the largest float would overflow first
        return tf.cast(tf.reduce_sum(0.5 * per_dim, axis, keepdims=keepdims), dtype)


def _per_dimension(q_mean, q_log_var, p_mean, p_log_var):
    """Twice the KL divergence of each dimension."""
    log_ratio = q_log_var - p_log_var
    # expm1(r) - r: exact near r = 0; where exp(r) overflows, capping the subtrahend keeps
    # inf - inf (r = +inf) out, and the result is +inf as it should be.
    overflow = float(np.ceil(np.log(np.finfo(log_ratio.dtype.as_numpy_dtype).max)))
    variance_term = tf.math.expm1(log_ratio) - tf.minimum(log_ratio, overflow)
    diff = q_mean - p_mean
    # diff**2 / var_p without forming 1 / var_p; where the means agree, exp() never sees
    # log_var_p, so neither the value nor the gradient meets 0 * inf.
    p_log_var = tf.where(tf.equal(diff, 0), tf.zeros_like(p_log_var), p_log_var)
    return variance_term + tf.square(diff * tf.exp(-0.5 * p_log_var))


def _pair(op, name, value, dtype):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise TypeError(f"{op}: {name} must be a (mean, log_variance) pair, got {value!r}")
    mean = _arguments.floating(op, f"{name}[0] (mean)", value[0], dtype)
    return mean, _arguments.floating(op, f"{name}[1] (log-variance)", value[1], mean.dtype)
