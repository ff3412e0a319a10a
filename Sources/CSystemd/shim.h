#include <systemd/sd-daemon.h>
// adjtimex(2): whether the kernel's clock is synchronized (NTP, chrony, systemd-timesyncd), for
// `health.clock.synchronized`. Not in Swift's Glibc module.
#include <sys/timex.h>
