"""What the bench scripts read from a calibration dataset's CSV files (docs/datasets.md).

KEY names the key columns of summary.csv and samples.csv in their order; point_key gives a
row's key as a tuple (an absent column reads as empty); open_samples opens samples.csv, or
the samples.csv.gz the corpus keeps, as text, and open_summary summary.csv likewise (the
corpus gzips it where a dataset would not fit its size budget otherwise); has_summary says
whether either is there.
"""
import gzip
import os

KEY = ("scenario", "mechanism", "variant", "fd_kind", "n_fds", "n_active", "active_pos", "max_fd", "blocking",
       "threads", "cpus", "pinning", "metric", "unit")


def point_key(row):
    return tuple(row.get(k, "") for k in KEY)


def _open_plain_or_gzip(directory, name):
    path = os.path.join(directory, name)
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        return gzip.open(path + ".gz", "rt", newline="")
    return open(path, newline="")


def open_samples(directory):
    """samples.csv of `directory` as a text file; samples.csv.gz when only that is there.
    Raises OSError when neither can be opened."""
    return _open_plain_or_gzip(directory, "samples.csv")


def open_summary(directory):
    """summary.csv of `directory` as a text file; summary.csv.gz when only that is there.
    Raises OSError when neither can be opened."""
    return _open_plain_or_gzip(directory, "summary.csv")


def has_summary(directory):
    path = os.path.join(directory, "summary.csv")
    return os.path.exists(path) or os.path.exists(path + ".gz")
