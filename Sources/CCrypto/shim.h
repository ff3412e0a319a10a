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

/* The type of each libcrypto function NFCBridge calls, from this header: libcrypto is opened with
   dlopen when first needed (NFCCore's LibCrypto, issue 25), so Swift calls it through pointers of
   these types. Add a line here for each function a new call needs. */
#define CCRYPTO_FUNCTION(name) typedef __typeof__(&name) ccrypto_##name;
CCRYPTO_FUNCTION(ERR_clear_error)
CCRYPTO_FUNCTION(ERR_get_error)
CCRYPTO_FUNCTION(ERR_error_string_n)
CCRYPTO_FUNCTION(BN_bin2bn)
CCRYPTO_FUNCTION(BN_free)
CCRYPTO_FUNCTION(ECDSA_SIG_new)
CCRYPTO_FUNCTION(ECDSA_SIG_free)
CCRYPTO_FUNCTION(ECDSA_SIG_set0)
CCRYPTO_FUNCTION(i2d_ECDSA_SIG)
CCRYPTO_FUNCTION(EVP_aes_128_cbc)
CCRYPTO_FUNCTION(EVP_des_ede_cbc)
CCRYPTO_FUNCTION(EVP_des_ede3_cbc)
CCRYPTO_FUNCTION(EVP_CIPHER_CTX_new)
CCRYPTO_FUNCTION(EVP_CIPHER_CTX_free)
CCRYPTO_FUNCTION(EVP_CIPHER_CTX_set_padding)
CCRYPTO_FUNCTION(EVP_CipherInit_ex)
CCRYPTO_FUNCTION(EVP_CipherUpdate)
CCRYPTO_FUNCTION(EVP_CipherFinal_ex)
CCRYPTO_FUNCTION(EVP_PKEY_free)
CCRYPTO_FUNCTION(EVP_PKEY_CTX_new_from_name)
CCRYPTO_FUNCTION(EVP_PKEY_CTX_new_from_pkey)
CCRYPTO_FUNCTION(EVP_PKEY_CTX_free)
CCRYPTO_FUNCTION(EVP_PKEY_fromdata_init)
CCRYPTO_FUNCTION(EVP_PKEY_fromdata)
CCRYPTO_FUNCTION(EVP_PKEY_verify_init)
CCRYPTO_FUNCTION(EVP_PKEY_verify)
CCRYPTO_FUNCTION(OSSL_PARAM_construct_utf8_string)
CCRYPTO_FUNCTION(OSSL_PARAM_construct_octet_string)
CCRYPTO_FUNCTION(OSSL_PARAM_construct_end)
CCRYPTO_FUNCTION(EVP_Q_mac)
CCRYPTO_FUNCTION(EVP_Q_digest)
