#!/usr/bin/env python3
"""Holds all but --leave-mib of a GPU's free memory until stopped, so another process finds a GPU
whose free memory is smaller than its data set (the "larger than the GPU" run of bench/gpu_bench.py:
an H200's 140 GiB cannot be outgrown from 128 GiB of host memory, a GPU with 1.5 GiB free can).

  python3 bench/hold_gpu_memory.py --device 0 --leave-mib 1536 --ready-file held.json

Only the CUDA driver (libcuda.so.1, there wherever a GPU is) through ctypes: no toolkit, no torch.
Once the memory is held it writes --ready-file (JSON: free and total before, held, free after, MiB)
and waits until it is terminated (SIGTERM / SIGINT) or its standard input closes; the driver frees
the memory when the process ends. Without a driver or device it prints "SKIP: reason" and exits 3.
"""

import argparse
import ctypes
import json
import os
import signal
import sys
import threading

MIB = 1 << 20


class DriverError(Exception):
    pass


def load_driver():
    for name in ("libcuda.so.1", "libcuda.so"):
        try:
            return ctypes.CDLL(name)
        except OSError:
            continue
    raise DriverError("no NVIDIA driver (libcuda.so.1 not found)")


def check(driver, code, what):
    if code != 0:
        text = ctypes.c_char_p()
        driver.cuGetErrorName(code, ctypes.byref(text))
        raise DriverError(f"{what} failed: {(text.value or b'error').decode()} ({code})")


def hold(device, leave_bytes):
    """Allocates free - leave_bytes on `device` in one block; returns (driver, facts in MiB)."""
    driver = load_driver()
    check(driver, driver.cuInit(0), "cuInit")
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    check(driver, driver.cuDeviceGet(ctypes.byref(dev), device), f"cuDeviceGet({device})")
    check(driver, driver.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    check(driver, driver.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
    free, total = ctypes.c_size_t(), ctypes.c_size_t()
    check(driver, driver.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)), "cuMemGetInfo")
    want = free.value - leave_bytes
    if want <= 0:
        raise DriverError(f"only {free.value // MIB} MiB free, less than the {leave_bytes // MIB} MiB to leave")
    ptr = ctypes.c_uint64()
    check(driver, driver.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(want)), f"cuMemAlloc({want // MIB} MiB)")
    after = ctypes.c_size_t()
    check(driver, driver.cuMemGetInfo_v2(ctypes.byref(after), ctypes.byref(total)), "cuMemGetInfo")
    return driver, {"device": device, "total_mib": total.value // MIB, "free_before_mib": free.value // MIB,
                    "held_mib": want // MIB, "free_after_mib": after.value // MIB}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", type=int, default=0)
    parser.add_argument("--leave-mib", type=int, default=1536, help="free memory to leave on the device")
    parser.add_argument("--ready-file", required=True, help="written once the memory is held")
    args = parser.parse_args()
    try:
        _, facts = hold(args.device, args.leave_mib * MIB)
    except DriverError as e:
        print(f"SKIP: {e}", flush=True)
        return 3
    with open(args.ready_file + ".tmp", "w") as f:
        json.dump(facts, f)
    os.replace(args.ready_file + ".tmp", args.ready_file)
    print(f"holding {facts['held_mib']} MiB of device {args.device}; {facts['free_after_mib']} MiB left free",
          flush=True)
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    # A closed standard input (the parent gone) ends the hold too.
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    while not stop.wait(0.5):  # a timed wait, so the signal handlers get to run
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
