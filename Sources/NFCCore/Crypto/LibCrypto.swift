import CCrypto
import DynamicLibrary

/// The libcrypto functions NFCBridge calls, bound from Debian's libcrypto.so.3 (package libssl3) with
/// dlopen when a command first needs cryptography (DESFire and NTAG 424 secure messaging, Ultralight C,
/// originality signatures, signed requests, credential hashes) rather than by ld.so at every process
/// start: libcrypto is linked `-z now`, and binding it was half of the loader's work before `main`
/// (issue 25). Each field is the function of the same name, typed by libcrypto's own header.
package struct LibCrypto: Sendable {
    package let ERR_clear_error: ccrypto_ERR_clear_error
    package let ERR_get_error: ccrypto_ERR_get_error
    package let ERR_error_string_n: ccrypto_ERR_error_string_n
    package let BN_bin2bn: ccrypto_BN_bin2bn
    package let BN_free: ccrypto_BN_free
    package let ECDSA_SIG_new: ccrypto_ECDSA_SIG_new
    package let ECDSA_SIG_free: ccrypto_ECDSA_SIG_free
    package let ECDSA_SIG_set0: ccrypto_ECDSA_SIG_set0
    package let i2d_ECDSA_SIG: ccrypto_i2d_ECDSA_SIG
    package let EVP_aes_128_cbc: ccrypto_EVP_aes_128_cbc
    package let EVP_des_ede_cbc: ccrypto_EVP_des_ede_cbc
    package let EVP_des_ede3_cbc: ccrypto_EVP_des_ede3_cbc
    package let EVP_CIPHER_CTX_new: ccrypto_EVP_CIPHER_CTX_new
    package let EVP_CIPHER_CTX_free: ccrypto_EVP_CIPHER_CTX_free
    package let EVP_CIPHER_CTX_set_padding: ccrypto_EVP_CIPHER_CTX_set_padding
    package let EVP_CipherInit_ex: ccrypto_EVP_CipherInit_ex
    package let EVP_CipherUpdate: ccrypto_EVP_CipherUpdate
    package let EVP_CipherFinal_ex: ccrypto_EVP_CipherFinal_ex
    package let EVP_PKEY_free: ccrypto_EVP_PKEY_free
    package let EVP_PKEY_CTX_new_from_name: ccrypto_EVP_PKEY_CTX_new_from_name
    package let EVP_PKEY_CTX_new_from_pkey: ccrypto_EVP_PKEY_CTX_new_from_pkey
    package let EVP_PKEY_CTX_free: ccrypto_EVP_PKEY_CTX_free
    package let EVP_PKEY_fromdata_init: ccrypto_EVP_PKEY_fromdata_init
    package let EVP_PKEY_fromdata: ccrypto_EVP_PKEY_fromdata
    package let EVP_PKEY_verify_init: ccrypto_EVP_PKEY_verify_init
    package let EVP_PKEY_verify: ccrypto_EVP_PKEY_verify
    package let OSSL_PARAM_construct_utf8_string: ccrypto_OSSL_PARAM_construct_utf8_string
    package let OSSL_PARAM_construct_octet_string: ccrypto_OSSL_PARAM_construct_octet_string
    package let OSSL_PARAM_construct_end: ccrypto_OSSL_PARAM_construct_end
    package let EVP_Q_mac: ccrypto_EVP_Q_mac
    package let EVP_Q_digest: ccrypto_EVP_Q_digest

    /// The functions, opening the library on the first call (once per process; a failure is kept and
    /// thrown again to every caller). Throws ``NFCError/libraryUnavailable(_:)`` when libcrypto cannot
    /// be loaded or lacks a function.
    package static func load() throws(NFCError) -> LibCrypto {
        switch loaded {
        case let .success(functions): return functions
        case let .failure(error): throw NFCError.libraryUnavailable(error.message)
        }
    }

    private static let loaded = Result { () throws(DynamicLibraryError) in
        try LibCrypto(try DynamicLibrary.open(soname, debianPackage: "libssl3"))
    }

    /// The library's soname (the one `-lcrypto` linked against before: OpenSSL 3).
    package static let soname = "libcrypto.so.3"

    /// Binds every function from `library`; ``DynamicLibraryError/symbolMissing(soname:debianPackage:symbol:)``
    /// for the first one it lacks. `package` so a test can bind a library that is not libcrypto.
    package init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        ERR_clear_error = try library.function("ERR_clear_error")
        ERR_get_error = try library.function("ERR_get_error")
        ERR_error_string_n = try library.function("ERR_error_string_n")
        BN_bin2bn = try library.function("BN_bin2bn")
        BN_free = try library.function("BN_free")
        ECDSA_SIG_new = try library.function("ECDSA_SIG_new")
        ECDSA_SIG_free = try library.function("ECDSA_SIG_free")
        ECDSA_SIG_set0 = try library.function("ECDSA_SIG_set0")
        i2d_ECDSA_SIG = try library.function("i2d_ECDSA_SIG")
        EVP_aes_128_cbc = try library.function("EVP_aes_128_cbc")
        EVP_des_ede_cbc = try library.function("EVP_des_ede_cbc")
        EVP_des_ede3_cbc = try library.function("EVP_des_ede3_cbc")
        EVP_CIPHER_CTX_new = try library.function("EVP_CIPHER_CTX_new")
        EVP_CIPHER_CTX_free = try library.function("EVP_CIPHER_CTX_free")
        EVP_CIPHER_CTX_set_padding = try library.function("EVP_CIPHER_CTX_set_padding")
        EVP_CipherInit_ex = try library.function("EVP_CipherInit_ex")
        EVP_CipherUpdate = try library.function("EVP_CipherUpdate")
        EVP_CipherFinal_ex = try library.function("EVP_CipherFinal_ex")
        EVP_PKEY_free = try library.function("EVP_PKEY_free")
        EVP_PKEY_CTX_new_from_name = try library.function("EVP_PKEY_CTX_new_from_name")
        EVP_PKEY_CTX_new_from_pkey = try library.function("EVP_PKEY_CTX_new_from_pkey")
        EVP_PKEY_CTX_free = try library.function("EVP_PKEY_CTX_free")
        EVP_PKEY_fromdata_init = try library.function("EVP_PKEY_fromdata_init")
        EVP_PKEY_fromdata = try library.function("EVP_PKEY_fromdata")
        EVP_PKEY_verify_init = try library.function("EVP_PKEY_verify_init")
        EVP_PKEY_verify = try library.function("EVP_PKEY_verify")
        OSSL_PARAM_construct_utf8_string = try library.function("OSSL_PARAM_construct_utf8_string")
        OSSL_PARAM_construct_octet_string = try library.function("OSSL_PARAM_construct_octet_string")
        OSSL_PARAM_construct_end = try library.function("OSSL_PARAM_construct_end")
        EVP_Q_mac = try library.function("EVP_Q_mac")
        EVP_Q_digest = try library.function("EVP_Q_digest")
    }
}
