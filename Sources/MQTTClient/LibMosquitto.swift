import CMosquitto
import DynamicLibrary

/// The libmosquitto functions the client calls, bound from Debian's libmosquitto.so.1 (package
/// libmosquitto1) with dlopen when the first client is made rather than by ld.so at every process
/// start: a one-shot command (`scan`, `dump`, `version`) never talks MQTT, and libmosquitto brings
/// libssl and libcrypto, both linked `-z now` (issue 25). Each field is the function of the same
/// name, typed by libmosquitto's own header.
struct LibMosquitto: Sendable {
    let mosquitto_connack_string: cmosquitto_mosquitto_connack_string
    let mosquitto_connect_bind_async: cmosquitto_mosquitto_connect_bind_async
    let mosquitto_connect_bind_v5: cmosquitto_mosquitto_connect_bind_v5
    let mosquitto_connect_v5_callback_set: cmosquitto_mosquitto_connect_v5_callback_set
    let mosquitto_destroy: cmosquitto_mosquitto_destroy
    let mosquitto_disconnect_v5: cmosquitto_mosquitto_disconnect_v5
    let mosquitto_int_option: cmosquitto_mosquitto_int_option
    let mosquitto_lib_init: cmosquitto_mosquitto_lib_init
    let mosquitto_lib_version: cmosquitto_mosquitto_lib_version
    let mosquitto_log_callback_set: cmosquitto_mosquitto_log_callback_set
    let mosquitto_loop: cmosquitto_mosquitto_loop
    let mosquitto_message_v5_callback_set: cmosquitto_mosquitto_message_v5_callback_set
    let mosquitto_new: cmosquitto_mosquitto_new
    let mosquitto_property_add_binary: cmosquitto_mosquitto_property_add_binary
    let mosquitto_property_add_byte: cmosquitto_mosquitto_property_add_byte
    let mosquitto_property_add_int32: cmosquitto_mosquitto_property_add_int32
    let mosquitto_property_add_string: cmosquitto_mosquitto_property_add_string
    let mosquitto_property_add_string_pair: cmosquitto_mosquitto_property_add_string_pair
    let mosquitto_property_free_all: cmosquitto_mosquitto_property_free_all
    let mosquitto_property_read_binary: cmosquitto_mosquitto_property_read_binary
    let mosquitto_property_read_byte: cmosquitto_mosquitto_property_read_byte
    let mosquitto_property_read_int32: cmosquitto_mosquitto_property_read_int32
    let mosquitto_property_read_string: cmosquitto_mosquitto_property_read_string
    let mosquitto_property_read_string_pair: cmosquitto_mosquitto_property_read_string_pair
    let mosquitto_pub_topic_check2: cmosquitto_mosquitto_pub_topic_check2
    let mosquitto_publish_v5: cmosquitto_mosquitto_publish_v5
    let mosquitto_publish_v5_callback_set: cmosquitto_mosquitto_publish_v5_callback_set
    let mosquitto_reason_string: cmosquitto_mosquitto_reason_string
    let mosquitto_socket: cmosquitto_mosquitto_socket
    let mosquitto_strerror: cmosquitto_mosquitto_strerror
    let mosquitto_subscribe_v5: cmosquitto_mosquitto_subscribe_v5
    let mosquitto_subscribe_v5_callback_set: cmosquitto_mosquitto_subscribe_v5_callback_set
    let mosquitto_sub_topic_check2: cmosquitto_mosquitto_sub_topic_check2
    let mosquitto_threaded_set: cmosquitto_mosquitto_threaded_set
    let mosquitto_tls_insecure_set: cmosquitto_mosquitto_tls_insecure_set
    let mosquitto_tls_opts_set: cmosquitto_mosquitto_tls_opts_set
    let mosquitto_tls_set: cmosquitto_mosquitto_tls_set
    let mosquitto_unsubscribe_v5: cmosquitto_mosquitto_unsubscribe_v5
    let mosquitto_unsubscribe_v5_callback_set: cmosquitto_mosquitto_unsubscribe_v5_callback_set
    let mosquitto_user_data_set: cmosquitto_mosquitto_user_data_set
    let mosquitto_username_pw_set: cmosquitto_mosquitto_username_pw_set
    let mosquitto_validate_utf8: cmosquitto_mosquitto_validate_utf8
    let mosquitto_will_set_v5: cmosquitto_mosquitto_will_set_v5

    /// The library's soname (the one `-lmosquitto` linked against before: libmosquitto 2).
    static let soname = "libmosquitto.so.1"

    /// Binds every function from `library`; ``DynamicLibraryError/symbolMissing(soname:debianPackage:symbol:)``
    /// for the first one it lacks.
    init(_ library: DynamicLibrary) throws(DynamicLibraryError) {
        mosquitto_connack_string = try library.function("mosquitto_connack_string")
        mosquitto_connect_bind_async = try library.function("mosquitto_connect_bind_async")
        mosquitto_connect_bind_v5 = try library.function("mosquitto_connect_bind_v5")
        mosquitto_connect_v5_callback_set = try library.function("mosquitto_connect_v5_callback_set")
        mosquitto_destroy = try library.function("mosquitto_destroy")
        mosquitto_disconnect_v5 = try library.function("mosquitto_disconnect_v5")
        mosquitto_int_option = try library.function("mosquitto_int_option")
        mosquitto_lib_init = try library.function("mosquitto_lib_init")
        mosquitto_lib_version = try library.function("mosquitto_lib_version")
        mosquitto_log_callback_set = try library.function("mosquitto_log_callback_set")
        mosquitto_loop = try library.function("mosquitto_loop")
        mosquitto_message_v5_callback_set = try library.function("mosquitto_message_v5_callback_set")
        mosquitto_new = try library.function("mosquitto_new")
        mosquitto_property_add_binary = try library.function("mosquitto_property_add_binary")
        mosquitto_property_add_byte = try library.function("mosquitto_property_add_byte")
        mosquitto_property_add_int32 = try library.function("mosquitto_property_add_int32")
        mosquitto_property_add_string = try library.function("mosquitto_property_add_string")
        mosquitto_property_add_string_pair = try library.function("mosquitto_property_add_string_pair")
        mosquitto_property_free_all = try library.function("mosquitto_property_free_all")
        mosquitto_property_read_binary = try library.function("mosquitto_property_read_binary")
        mosquitto_property_read_byte = try library.function("mosquitto_property_read_byte")
        mosquitto_property_read_int32 = try library.function("mosquitto_property_read_int32")
        mosquitto_property_read_string = try library.function("mosquitto_property_read_string")
        mosquitto_property_read_string_pair = try library.function("mosquitto_property_read_string_pair")
        mosquitto_pub_topic_check2 = try library.function("mosquitto_pub_topic_check2")
        mosquitto_publish_v5 = try library.function("mosquitto_publish_v5")
        mosquitto_publish_v5_callback_set = try library.function("mosquitto_publish_v5_callback_set")
        mosquitto_reason_string = try library.function("mosquitto_reason_string")
        mosquitto_socket = try library.function("mosquitto_socket")
        mosquitto_strerror = try library.function("mosquitto_strerror")
        mosquitto_subscribe_v5 = try library.function("mosquitto_subscribe_v5")
        mosquitto_subscribe_v5_callback_set = try library.function("mosquitto_subscribe_v5_callback_set")
        mosquitto_sub_topic_check2 = try library.function("mosquitto_sub_topic_check2")
        mosquitto_threaded_set = try library.function("mosquitto_threaded_set")
        mosquitto_tls_insecure_set = try library.function("mosquitto_tls_insecure_set")
        mosquitto_tls_opts_set = try library.function("mosquitto_tls_opts_set")
        mosquitto_tls_set = try library.function("mosquitto_tls_set")
        mosquitto_unsubscribe_v5 = try library.function("mosquitto_unsubscribe_v5")
        mosquitto_unsubscribe_v5_callback_set = try library.function("mosquitto_unsubscribe_v5_callback_set")
        mosquitto_user_data_set = try library.function("mosquitto_user_data_set")
        mosquitto_username_pw_set = try library.function("mosquitto_username_pw_set")
        mosquitto_validate_utf8 = try library.function("mosquitto_validate_utf8")
        mosquitto_will_set_v5 = try library.function("mosquitto_will_set_v5")
    }
}
