// adjtimex(2): whether the kernel's clock is synchronized (NTP, chrony, systemd-timesyncd), for
// `health.clock.synchronized`. Not in Swift's Glibc module. libc's, so nothing is linked: the agent
// speaks systemd's notification protocol itself (ServiceNotifier) and needs no libsystemd.
#include <sys/timex.h>
