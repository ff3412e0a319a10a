"""Statistics for the bench scripts (standard library only)."""
import statistics
import sys


def quantile(values, q):
    """Nearest-rank quantile of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q * len(ordered) + 0.5)))
    return ordered[rank - 1]


def paired(label_a, label_b):
    pairs = [tuple(int(x) for x in line.split()) for line in sys.stdin if line.strip()]
    a = [p[0] / 1e9 for p in pairs]
    b = [p[1] / 1e9 for p in pairs]
    ratios = [x / y for x, y in pairs]
    print(f"  {label_a:<38} median {statistics.median(a):.3f} s  (min {min(a):.3f}, max {max(a):.3f})")
    print(f"  {label_b:<38} median {statistics.median(b):.3f} s  (min {min(b):.3f}, max {max(b):.3f})")
    print(f"  ratio {statistics.median(ratios):.2f}  (pair by pair: min {min(ratios):.2f}, max {max(ratios):.2f}, n {len(ratios)})")


def percentiles(label):
    values = [float(line) for line in sys.stdin if line.strip()]
    if not values:
        print(f"  {label}: no samples")
        return
    print(f"  {label}: n {len(values)}  p50 {quantile(values, .5):.0f}  p95 {quantile(values, .95):.0f}"
          f"  p99 {quantile(values, .99):.0f}  max {max(values):.0f} ms")


if __name__ == "__main__":
    {"paired": lambda: paired(sys.argv[2], sys.argv[3]), "percentiles": lambda: percentiles(sys.argv[2])}[sys.argv[1]]()
