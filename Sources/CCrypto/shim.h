#include <openssl/evp.h>
#include <openssl/ec.h>
#include <openssl/ecdsa.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/err.h>
#include <openssl/obj_mac.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

/* EVP_PKEY_PUBLIC_KEY is a macro built from other macros, which Swift does not import. */
static const int ccrypto_selection_public_key = EVP_PKEY_PUBLIC_KEY;
