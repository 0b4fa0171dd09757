import warnings
import torch


def attempt(name, f, makers):
    row = []
    for k, mk in makers.items():
        o = mk()
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r = f(o)
            row.append(f"{k}:{'same' if r is o else 'other'}:{r.tolist() if isinstance(r, torch.Tensor) else type(r).__name__}")
        except Exception as e:
            row.append(f"{k}:{type(e).__name__}:{str(e)[:90]}")
    print(name, row)


OUTS = {"f64": lambda: torch.empty(0, dtype=torch.float64), "i64": lambda: torch.empty(0, dtype=torch.long),
        "f16": lambda: torch.empty(0, dtype=torch.half), "c64": lambda: torch.empty(0, dtype=torch.complex64),
        "b": lambda: torch.empty(0, dtype=torch.bool), "i32": lambda: torch.empty(0, dtype=torch.int32)}
A = torch.tensor([[2.0, 1.0], [1.0, 3.0]])
I = torch.tensor([[2, -1], [0, 3]])
#%% pointwise ops that cast into out
for name, f in {"add": lambda o: torch.add(A, 1, out=o), "addI": lambda o: torch.add(I, 1, out=o), "mul": lambda o: torch.mul(A, A, out=o),
                "div": lambda o: torch.div(I, 2, out=o), "exp": lambda o: torch.exp(A - A.round(), out=o),  # (float32 exp: 1 ulp, documented)
                "sqrt": lambda o: torch.sqrt(A, out=o),
                "eq": lambda o: torch.eq(A, 1, out=o), "pow": lambda o: torch.pow(I, 2, out=o),  # (atan2: float32 last bit, see report)
                "maximum": lambda o: torch.maximum(A, A, out=o), "lerp": lambda o: torch.lerp(A, A, 0.3, out=o), "remainder": lambda o: torch.remainder(I, 2, out=o)}.items():
    attempt(name, f, OUTS)
#%% ops whose out must keep the dtype
for name, f in {"abs": lambda o: torch.abs(I, out=o), "neg": lambda o: torch.neg(A, out=o), "sign": lambda o: torch.sign(A, out=o),
                "floor": lambda o: torch.floor(A, out=o), "round": lambda o: torch.round(A, out=o), "frac": lambda o: torch.frac(A, out=o),
                "mm": lambda o: torch.mm(A, A, out=o), "mv": lambda o: torch.mv(A, A[0], out=o), "dot": lambda o: torch.dot(A[0], A[1], out=o),
                "inv": lambda o: torch.linalg.inv(A, out=o), "det": lambda o: torch.linalg.det(A, out=o), "norm": lambda o: torch.linalg.norm(A, out=o),
                "vector_norm": lambda o: torch.linalg.vector_norm(A, out=o), "matrix_norm": lambda o: torch.linalg.matrix_norm(A, out=o),
                "tril": lambda o: torch.tril(A, out=o), "gather": lambda o: torch.gather(A, 0, torch.tensor([[1, 0]]), out=o),
                "index_select": lambda o: torch.index_select(A, 0, torch.tensor([1]), out=o), "take": lambda o: torch.take(A, torch.tensor([3]), out=o),
                "masked_select": lambda o: torch.masked_select(A, A > 1, out=o), "argmax": lambda o: torch.argmax(A, 0, out=o),
                "amax": lambda o: torch.amax(A, 0, out=o), "quantile": lambda o: torch.quantile(A, 0.5, 0, out=o), "msort": lambda o: torch.msort(A, out=o)}.items():
    attempt(name, f, OUTS)
#%% reductions accumulate in the out dtype
B = torch.tensor([[2.7, -1.5], [0.5, 3.2]])
for name, f in {"sum": lambda o: torch.sum(B, 0, out=o), "sum_all": lambda o: torch.sum(B, (0, 1), out=o), "prod": lambda o: torch.prod(B, 0, out=o),
                "cumsum": lambda o: torch.cumsum(B, 0, out=o), "cumprod": lambda o: torch.cumprod(B, 1, out=o), "mean": lambda o: torch.mean(B, 0, out=o),
                "nansum": lambda o: torch.nansum(B, 1, out=o), "diff": lambda o: torch.diff(B, out=o)}.items():
    attempt(name, f, {k: OUTS[k] for k in ("f64", "i64", "f16", "i32")})
#%% tuple outs and their return types
v, i = torch.empty(0), torch.empty(0, dtype=torch.long)
r = torch.max(A, 1, out=(v, i))
print(type(r).__name__, r.values is v, r.indices is i, r)
r = torch.sort(A, 1, descending=True, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))
print(type(r).__name__, r)
r = torch.linalg.eigh(A, out=(torch.empty(0), torch.empty(0)))
print(type(r).__name__, r.eigenvalues.round(decimals=4))
print(type(torch.aminmax(A, out=(torch.empty(0), torch.empty(0)))).__name__, type(torch.cummax(A, 0, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))).__name__)
print(type(torch.frexp(A, out=(torch.empty(0), torch.empty(0, dtype=torch.int32)))).__name__, type(torch.linalg.slogdet(A, out=(torch.empty(0), torch.empty(0)))).__name__)
for bad in [lambda: torch.max(A, 1, out=(torch.empty(0, dtype=torch.float64), torch.empty(0, dtype=torch.long))),
            lambda: torch.sort(A, out=(torch.empty(0), torch.empty(0, dtype=torch.int32))),
            lambda: torch.linalg.lu_factor(A, out=(torch.empty(0), torch.empty(0, dtype=torch.long)))]:
    try:
        bad()
    except RuntimeError as e:
        print(e)
#%% out resizing and views
o = torch.empty(5)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    torch.mm(A, A, out=o)
print(o, len(w))
o = torch.zeros(2, 4)
torch.mm(A, A, out=o[:, :2])
print(o)
o = torch.empty(0, dtype=torch.float64)
torch.sum(torch.tensor([1e8, 1.0, -1e8]), 0, out=o)
print(o, torch.sum(torch.tensor([1e8, 1.0, -1e8])))
x = torch.ones(3, requires_grad=True)
try:
    torch.mul(x, 2, out=torch.empty(3))
except RuntimeError as e:
    print(e)
try:
    torch.mm(A, A, out=torch.empty(2, 2, dtype=torch.float64).t())
except RuntimeError as e:
    print(e)
