"""Rule expressions, conditions and effects -> z3 terms (the verifier's half of "one AST, two backends").

`tessera.compiler.pyexpr.emit` turns an expression into Python source; `encode` turns
the same AST into a z3 term with the same meaning, so that what the verifier
proves is about the code the engine runs:

- integers are unbounded (Python ints, z3 Int);
- `//` and `%` are Python's floor division and modulo, made total: x // 0 == 0
  and x % 0 == 0 (the compiler's `_div` / `_mod`);
- `and`, `or`, `not`, `if … then … else`, comparisons (never chained), `min`, `max`.

Names are looked up in an `Env`: each quantity, state variable and function of
`tessera.dsl.builtins` stands for a z3 term, created on first use with the facts
`tessera.verifier.domain` gives it (`tiles >= 1`, `shields <= 3 * tiles` from the tile
set, the rule set's player range, …).  The domain facts are kept with the env
so that a proof can say which ones it used.
"""
from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass, field
from typing import Callable, Iterator

import z3

from ..dsl import ast as A
from ..dsl.builtins import FUNCTIONS, QUANTITIES

from .domain import Domain
from .solver import Fact


# A parameter kept a name (`tessera verify --param NAME`, verifier/params.py): the ranges being proved,
# set by `symbols` around a check; `Env.name` asks `param_symbol` for a name it does not know.
_SYMBOLS: contextvars.ContextVar[dict[str, tuple[int, int]]] = contextvars.ContextVar("tessera_param_symbols",
                                                                                      default={})


@contextlib.contextmanager
def symbols(ranges: dict[str, tuple[int, int]]) -> Iterator[None]:
    tok = _SYMBOLS.set(dict(ranges))
    try:
        yield
    finally:
        _SYMBOLS.reset(tok)


def param_symbol(name: str, env):
    """The z3 integer of a parameter kept as a name (None when `name` is none), with its range as a fact.
    No tag: one value for the whole game, the same before and after every step."""
    rng = _SYMBOLS.get().get(name)
    if rng is None:
        return None
    lo, hi = rng
    v = z3.Int(name)
    env.names[name] = env.created[name] = v
    env._add([Fact(z3.And(v >= lo, v <= hi), "param", f"{name} in {lo}..{hi} (the range being proved)")], True, name)
    return v


class EncodeError(Exception):
    """The expression uses a name the environment does not provide."""


def div(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
    """Python's floor division, total (x // 0 == 0).  z3's `/` on Int is Euclidean division."""
    return z3.If(y == 0, z3.IntVal(0), z3.If(y > 0, x / y, (-x) / (-y)))


def mod(x: z3.ArithRef, y: z3.ArithRef) -> z3.ArithRef:
    """Python's modulo (the sign of the divisor), total (x % 0 == 0)."""
    return z3.If(y == 0, z3.IntVal(0), x - y * div(x, y))


@dataclass
class Env:
    """What each name of an expression stands for, in one symbolic situation.

    `tag` is appended to the z3 names of the variables the env creates, so two
    envs (before/after, two features) never share a variable by accident.
    """

    tag: str = ""
    names: dict[str, z3.ExprRef] = field(default_factory=dict)
    calls: dict[str, Callable[[tuple[A.Expr, ...]], z3.ExprRef]] = field(default_factory=dict)
    facts: list[Fact] = field(default_factory=list)
    auto: bool = True  # create builtin quantities/functions on first use
    created: dict[str, z3.ExprRef] = field(default_factory=dict)  # readable name -> variable
    domain: Domain = field(default_factory=lambda: Domain(None))  # the facts of each quantity
    kind: str | None = None  # the feature kind the feature quantities belong to
    sink: list[Fact] | None = None  # also receives the facts of game quantities (completed(K), players)
    game_vars: dict[str, z3.ExprRef] | None = None  # and their variables, for counterexamples
    completing: bool = False  # the feature (of `kind`) has just completed: completed(kind) counts it

    def var(self, name: str, low: int | None = None, high: int | None = None, why: str = "builtin",
            text: str | None = None) -> z3.ArithRef:
        """A fresh integer variable with an optional range, recorded as a domain fact."""
        v = z3.Int(f"{name}{self.tag}")
        self.created[name] = v
        conds = []
        if low is not None:
            conds.append(v >= low)
        if high is not None:
            conds.append(v <= high)
        if conds:
            rng = f"{low if low is not None else ''}..{high if high is not None else ''}"
            self.facts.append(Fact(z3.And(conds), why, text or f"{name} in {rng}"))
        return v

    def _add(self, facts: list[Fact], game: bool, key: str = "") -> None:
        self.facts.extend(facts)
        if game and self.sink is not None:
            self.sink.extend(facts)
        if game and self.game_vars is not None and key:
            self.game_vars.setdefault(key, self.names[key])

    def name(self, n: str) -> z3.ExprRef:
        if n in self.names:
            return self.names[n]
        q = QUANTITIES.get(n)
        if q is not None and self.auto:
            v = z3.Int(f"{n}{self.tag}")
            self.names[n] = self.created[n] = v
            if n == "players":
                self._add(self.domain.players(v), True, n)
            elif n == "current":
                self._add(self.domain.current(v, self.name("players")), True, n)
            else:
                self._add(self.domain.quantity(n, v, self.kind, self.name), False)
            return v
        p = param_symbol(n, self)  # a parameter kept a name: proved over its range (verifier/params.py)
        if p is not None:
            return p
        raise EncodeError(f"unknown name `{n}`")

    def call(self, fn: str, args: tuple[A.Expr, ...]) -> z3.ExprRef:
        if fn in self.calls:
            return self.calls[fn](args)
        f = FUNCTIONS.get(fn)
        if f is not None and self.auto and all(k in ("kind", "mark") for k in f.args):
            key = f"{fn}({','.join(a.name if isinstance(a, A.Var) else '?' for a in args)})"
            if key not in self.names:
                v = z3.Int(f"{key}{self.tag}")
                self.names[key] = self.created[key] = v
                # `turn` reads the placed tile, `marks` and `bordering` the feature: none is a fact of the game
                self._add(self.domain.function(fn, key, v), fn not in ("turn", "marks", "bordering"), key)
                if fn == "completed" and self.completing and key == f"completed({self.kind})":
                    self._add([Fact(v >= 1, "engine", f"{key} >= 1: it counts the {self.kind} that has just completed")], False)
            return self.names[key]
        raise EncodeError(f"unknown function `{fn}`")


def encode(e: A.Expr, env: Env) -> z3.ExprRef:
    match e:
        case A.IntLit(value=v):
            return z3.IntVal(int(v))
        case A.BoolLit(value=v):
            return z3.BoolVal(bool(v))
        case A.Var(name=n):
            return env.name(n)
        case A.StateOf(name=n, seat=seat):
            # a seat not in the game reads 0, as the engine's `_of` does
            s = encode(seat, env)
            keys = seat_keys(n, env.names)
            if not keys:
                raise EncodeError(f"unknown state `{n}` kept per player")
            players = env.names.get("players")
            terms = [z3.If(z3.And(s == p, p < players) if players is not None else s == p, env.names[k], 0)
                     for p, k in enumerate(keys)]
            return z3.Sum(terms)
        case A.Call(fn=fn, args=args):
            if fn in ("min", "max"):
                a, b = (encode(x, env) for x in args)
                return z3.If(a <= b, a, b) if fn == "min" else z3.If(a >= b, a, b)
            return env.call(fn, args)
        case A.BinOp(op=op, left=l, right=r):
            a = encode(l, env)
            b = encode(r, env)
            match op:
                case "and":
                    return z3.And(a, b)
                case "or":
                    return z3.Or(a, b)
                case "==":
                    return a == b
                case "!=":
                    return a != b
                case "<":
                    return a < b
                case "<=":
                    return a <= b
                case ">":
                    return a > b
                case ">=":
                    return a >= b
                case "+":
                    return a + b
                case "-":
                    return a - b
                case "*":
                    return a * b
                case "//":
                    return div(a, b)
                case "%":
                    return mod(a, b)
            raise EncodeError(f"unknown operator `{op}`")
        case A.Not(operand=o):
            return z3.Not(encode(o, env))
        case A.Neg(operand=o):
            return -encode(o, env)
        case A.Cond(test=t, then=a, orelse=b):
            return z3.If(encode(t, env), encode(a, env), encode(b, env))
    raise TypeError(f"not an expression: {e!r}")


# ------------------------------------------------------------------ effects
@dataclass
class Step:
    """One `on …` rule, encoded: when it fires, what it requires, the state after it."""

    fires: z3.BoolRef  # the `where` guard
    legal: z3.BoolRef  # fires => every `require` holds
    after: dict[str, z3.ExprRef]  # every state variable after the rule
    requires: list[tuple[z3.BoolRef, A.Require]] = field(default_factory=list)


def encode_on(on: A.OnDecl, env: Env, state: dict[str, z3.ExprRef]) -> Step:
    """The effect of an `on` rule on `state` (simultaneous assignment: every `set` reads the old values).

    `env` must map the state variables to `state`'s terms (see `with_state`).
    """
    fires = encode(on.where, env) if on.where is not None else z3.BoolVal(True)
    reqs = [(encode(a.test, env), a) for a in on.actions if isinstance(a, A.Require)]
    legal = z3.Implies(fires, z3.And([r for r, _ in reqs])) if reqs else z3.BoolVal(True)
    after = dict(state)
    for a in on.actions:
        if isinstance(a, A.SetAction) and a.seat is not None:
            seat, value = encode(a.seat, env), encode(a.value, env)
            for p, k in enumerate(seat_keys(a.name, state)):
                after[k] = z3.If(z3.And(fires, seat == p), value, state[k])
        elif isinstance(a, A.SetAction):
            after[a.name] = z3.If(fires, encode(a.value, env), state[a.name])
    return Step(fires, legal, after, reqs)


def seat_key(name: str, seat: int) -> str:
    """The variable of seat `seat`'s value of a state kept per player (`state NAME of each player`)."""
    return f"{name}[{seat}]"


def seat_keys(name: str, names) -> list[str]:
    """Every seat's variable of a per-player state that `names` holds, in seat order."""
    out = []
    while seat_key(name, len(out)) in names:
        out.append(seat_key(name, len(out)))
    return out


def with_state(env: Env, state: dict[str, z3.ExprRef]) -> Env:
    env.names.update(state)
    return env


def describe_on(on: A.OnDecl) -> str:
    head = f"on {on.event}" + (f" of {on.of}" if on.of else "")
    cites = ", ".join(c.clause for c in on.cites)
    return head + (f" [{cites}]" if cites else "")
