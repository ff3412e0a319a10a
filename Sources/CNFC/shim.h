#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>
#include <nfc/nfc.h>
