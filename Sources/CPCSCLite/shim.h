#include <stddef.h>
#include <stdint.h>
#include <winscard.h>
#include <wintypes.h>
#include <pcsclite.h>

/* pcsc-lite's SCARD_PCI_T0 / SCARD_PCI_T1 are macros over exported structures Swift cannot import
   as macros; these give the protocol control information of a connected protocol. */
static inline const SCARD_IO_REQUEST *cpcsc_pci(DWORD protocol) {
    return protocol == SCARD_PROTOCOL_T0 ? SCARD_PCI_T0 : (protocol == SCARD_PROTOCOL_RAW ? SCARD_PCI_RAW : SCARD_PCI_T1);
}

/* SCARD_AUTOALLOCATE is (DWORD)(-1); spelled here so Swift sees one DWORD value. */
static const DWORD cpcsc_maximum_readers_buffer = 65536;
