#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <nfc/nfc.h>
#include <sys/prctl.h>

/* The calling thread's kernel name (at most 15 bytes), as `top -H` shows it. Small wrappers because
   prctl(2) is variadic and pthread_setname_np is a GNU extension Swift's Glibc module hides. */
static inline int cnfc_set_thread_name(const char *name) { return prctl(PR_SET_NAME, name, 0, 0, 0); }
static inline int cnfc_get_thread_name(char buffer[16]) { return prctl(PR_GET_NAME, buffer, 0, 0, 0); }

/* libnfc's PN53x register write (exported by libnfc6 1.8.0, declared only in its internal pn53x.h).
   Registers of the CIU cache area are written back before the next command; with the full mask
   (0xff) libnfc does not read the register first. Only for PN53x drivers (not `pcsc`). */
int pn53x_write_register(struct nfc_device *pnd, const uint16_t ui16Reg, const uint8_t ui8SymbolMask,
                         const uint8_t ui8Value);

/* libnfc's raw PN53x command exchange (exported by libnfc6 1.8.0, declared only in pn53x.h): sends
   one chip command (`pbtTx[0]` is the command code) and waits `timeout` ms (0: forever, -1: the
   device's command timeout) for the ACK and then the answer. Used for the GetFirmwareVersion probe
   that tells a silent reader from an empty field. */
int pn53x_transceive(struct nfc_device *pnd, const uint8_t *pbtTx, const size_t szTx, uint8_t *pbtRx,
                     const size_t szRxLen, int timeout);
