#include "frameworks/jax_optimizers.h"

#include "frameworks/script_text.h"

namespace wb {

namespace {

std::string adamCode(const OptimizerSpec& o) {
    const bool decoupled = o.kind == OptimizerKind::AdamW;
    std::string s = "\nLR, BETA1, BETA2, EPS, WEIGHT_DECAY = " + pyNumber(o.lr) + ", " + pyNumber(o.beta1) + ", " +
                    pyNumber(o.beta2) + ", " + pyNumber(o.eps) + ", " + pyNumber(o.weightDecay) + R"PY(


def optimizer_init(params):
    """The step count and the first and second moments, zero."""
    return jnp.zeros((), jnp.int32), [jnp.zeros_like(p) for p in params], [jnp.zeros_like(p) for p in params]


def optimizer_update(params, grads, state):
    """torch.optim.)PY" +
                    (decoupled ? "AdamW" : "Adam") +
                    R"PY(: p -= lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)."""
    step, ms, vs = state
    step = step + 1
    t = step.astype(jnp.float32)
    # 1 - beta^t as -expm1(t log beta): in float32 without the cancellation of 1 - 0.999^t.
    step_size = LR / -jnp.expm1(t * math.log(BETA1))
    correction2_sqrt = jnp.sqrt(-jnp.expm1(t * math.log(BETA2)))
    out = ([], [], [])
    for p, g, m, v in zip(params, grads, ms, vs):
)PY";
    if (decoupled)
        s += "        p = p * (1 - LR * WEIGHT_DECAY)  # AdamW: the weight decays itself, before the update\n";
    else if (o.weightDecay != 0.0)
        s += "        g = g + WEIGHT_DECAY * p  # Adam's weight decay: L2, added to the gradient\n";
    s += R"PY(        m = m * BETA1 + g * (1 - BETA1)
        v = v * BETA2 + g * g * (1 - BETA2)
        p = p - step_size * (m / (jnp.sqrt(v) / correction2_sqrt + EPS))
        for column, value in zip(out, (p, m, v)):
            column.append(value)
    return out[0], (step, out[1], out[2])
)PY";
    return s;
}

std::string sgdCode(const OptimizerSpec& o) {
    const bool momentum = o.momentum != 0.0;
    std::string s = "\nLR, MOMENTUM, DAMPENING, WEIGHT_DECAY = " + pyNumber(o.lr) + ", " + pyNumber(o.momentum) + ", " +
                    pyNumber(o.dampening) + ", " + pyNumber(o.weightDecay) + "\nNESTEROV = " + pyBool(o.nesterov) +
                    R"PY(


def optimizer_init(params):
    """The step count and a momentum buffer per parameter, zero."""
    return jnp.zeros((), jnp.int32), [jnp.zeros_like(p) for p in params]


def optimizer_update(params, grads, state):
    """torch.optim.SGD: d = g + wd p; buf = mu buf + (1 - dampening) d (d itself at the first step);
    p -= lr (d + mu buf) with Nesterov, else lr buf."""
    step, bufs = state
    step = step + 1
    new_params, new_bufs = [], []
    for p, g, buf in zip(params, grads, bufs):
        d = g + WEIGHT_DECAY * p if WEIGHT_DECAY else g
)PY";
    s += momentum
             ? R"PY(        buf = jnp.where(step == 1, d, buf * MOMENTUM + d * (1 - DAMPENING))  # starts as a copy of d
        d = d + MOMENTUM * buf if NESTEROV else buf
)PY"
             : "        # momentum 0: plain gradient descent, the buffer stays unused\n";
    s += R"PY(        new_params.append(p - LR * d)
        new_bufs.append(buf)
    return new_params, (step, new_bufs)
)PY";
    return s;
}

std::string rmspropCode(const OptimizerSpec& o) {
    std::string s = "\nLR, ALPHA, EPS, MOMENTUM, WEIGHT_DECAY = " + pyNumber(o.lr) + ", " + pyNumber(o.alpha) + ", " +
                    pyNumber(o.eps) + ", " + pyNumber(o.momentum) + ", " + pyNumber(o.weightDecay) +
                    "\nCENTERED = " + pyBool(o.centered) + R"PY(


def optimizer_init(params):
    """The square average, the gradient average (centred) and the momentum buffer, zero."""
    zeros = [jnp.zeros_like(p) for p in params]
    return zeros, zeros, zeros


def optimizer_update(params, grads, state):
    """torch.optim.RMSprop: sq = alpha sq + (1 - alpha) g^2; denom = sqrt(sq - avg^2) + eps (centred)
    or sqrt(sq) + eps; with momentum buf = mu buf + g / denom, p -= lr buf; else p -= lr g / denom."""
    out = ([], [], [], [])
    for p, g, sq, avg, buf in zip(params, grads, *state):
        if WEIGHT_DECAY:
            g = g + WEIGHT_DECAY * p
        sq = sq * ALPHA + g * g * (1 - ALPHA)
        if CENTERED:
            avg = avg * ALPHA + g * (1 - ALPHA)
            denom = jnp.sqrt(sq - avg * avg) + EPS
        else:
            denom = jnp.sqrt(sq) + EPS
        if MOMENTUM > 0:
            buf = buf * MOMENTUM + g / denom
            p = p - LR * buf
        else:
            p = p - LR * (g / denom)
        for column, value in zip(out, (p, sq, avg, buf)):
            column.append(value)
    return out[0], (out[1], out[2], out[3])
)PY";
    return s;
}
}  // namespace

std::string jaxOptimizerCode(const OptimizerSpec& spec) {
    switch (spec.kind) {
        case OptimizerKind::Adam:
        case OptimizerKind::AdamW: return adamCode(spec);
        case OptimizerKind::Sgd: return sgdCode(spec);
        case OptimizerKind::RmsProp: return rmspropCode(spec);
    }
    return {};
}

}  // namespace wb
