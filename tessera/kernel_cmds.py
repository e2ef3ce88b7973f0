"""`tessera kernel`: which engine kernel runs (interpreted or native, TESSERA_KERNEL), and `tessera
kernel build`, which builds the native one ahead of time (compiler/native.py)."""
from __future__ import annotations

import typer

from .app import app, err, out
from .dsl.untrusted import printable

kernel_app = typer.Typer(no_args_is_help=False, rich_markup_mode="rich",
                         help="Which engine kernel runs: the interpreted one or the native one (Cython; "
                              "TESSERA_KERNEL=auto|python|native); `tessera kernel build` builds the native one.")
app.add_typer(kernel_app, name="kernel")


def _fail(message: str) -> None:
    err.print(printable(f"tessera kernel: {message}", 2000), markup=False)
    raise typer.Exit(2)


@kernel_app.callback(invoke_without_command=True)
def kernel_status(ctx: typer.Context) -> None:
    """Which kernel an engine runs on now, and why; where the native one is (or would be) cached."""
    if ctx.invoked_subcommand is not None:
        return
    from .compiler import native

    s = native.status()
    if s["problem"]:
        _fail(s["problem"])
    names = ", ".join(m.split("/")[-1] for m in s["modules"])
    if s["runs"] == "native" and s["built"]:
        why = f"TESSERA_KERNEL={s['choice']}: built for this runtime"
    elif s["choice"] == "native":
        why = "TESSERA_KERNEL=native: not built yet; the first engine builds it (or `tessera kernel build`)"
    elif s["choice"] == "python":
        why = "TESSERA_KERNEL=python"
    else:
        why = "TESSERA_KERNEL=auto: the native kernel is not built for this runtime; `tessera kernel build` builds it"
    out.print(printable(f"kernel: {s['runs']} ({why})"), markup=False)
    out.print(printable(f"native kernel: {s['folder']}{'' if s['built'] else ' (not built)'}"), markup=False)
    out.print(printable(f"compiled: {len(s['modules'])} runtime modules ({names}); Cython "
                        f"{s['cython'] or 'not installed'}, extension suffix {s['python']}"), markup=False)
    if s["pgo"]:
        sets = "; ".join("+".join(str(n) for n in t) for t in s["pgo"] if isinstance(t, list))
        out.print(printable(f"built profile-guided (GCC): trained on games of {sets}"), markup=False)
    elif s["pgo"] is False:
        out.print("built plain (no profile-guided optimisation: the C compiler is not GCC, its training failed, "
                  "or TESSERA_KERNEL_PGO=0)", markup=False)
    if s["missing"]:
        out.print(printable(f"cannot build here: {s['missing']}"), markup=False)


@kernel_app.command("build")
def kernel_build() -> None:
    """Build the native kernel now (once for this runtime, Cython and interpreter; two or three minutes): every engine then runs on it (TESSERA_KERNEL=auto, the default)."""
    from .compiler import native

    if native.built() is not None:
        out.print(printable(f"native kernel already built: {native.kernel_dir()}"), markup=False)
        return
    try:
        d = native.ensure_built(say=lambda line: err.print(printable(line, 2000), markup=False))
    except native.KernelError as exc:
        _fail(str(exc))
    out.print(printable(f"native kernel built: {d}"), markup=False)
