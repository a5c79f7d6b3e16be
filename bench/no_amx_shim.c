// LD_PRELOAD shim for measuring on an AMX CPU as on one without AMX (AMD Zen 4, Intel Ice Lake): refuses the AMX
// tile-data permission that Linux makes a process ask for (arch_prctl ARCH_REQ_XCOMP_PERM through syscall()), so a
// library that asks first (ONNX Runtime's MLAS, whose int8 matrix products otherwise take AMX) keeps its VNNI kernels.
// Every other system call passes through. bench/quant_compare.py --vnni-only builds and preloads it for ONNX Runtime.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <sys/syscall.h>

#define ARCH_REQ_XCOMP_PERM 0x1023

long syscall(long number, ...) {
  static long (*real_syscall)(long, ...);
  if (real_syscall == 0) real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (int i = 0; i < 6; ++i) a[i] = va_arg(ap, long);
  va_end(ap);
  if (number == SYS_arch_prctl && a[0] == ARCH_REQ_XCOMP_PERM) {
    errno = EPERM;
    return -1;
  }
  return real_syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}
