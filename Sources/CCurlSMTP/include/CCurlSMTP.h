#ifndef GATEWAY_CCURLSMTP_H
#define GATEWAY_CCURLSMTP_H

#include <stddef.h>

/// How a relay's connection is secured.
typedef enum {
    /// Plain SMTP (a loopback relay in tests only; the Swift side refuses it elsewhere).
    GW_SMTP_TLS_OFF = 0,
    /// STARTTLS, required: a relay that does not offer it is refused before AUTH or MAIL.
    GW_SMTP_TLS_STARTTLS = 1,
    /// TLS from the first byte (`smtps://`, port 465).
    GW_SMTP_TLS_IMPLICIT = 2,
} gw_smtp_tls;

/// The outcome of one message: libcurl's code, the relay's last SMTP reply code (0 when none
/// came), and libcurl's error text (empty on success).
typedef struct {
    int curl_code;
    long smtp_code;
    char error[256];
} gw_smtp_result;

/// Sends one message through an SMTP relay with libcurl, blocking the calling thread (the
/// Swift side runs it on a thread pool). `url` is `smtp://host:port` or `smtps://host:port`;
/// `username`/`password` NULL: no AUTH; `ca_file` NULL: the system's trust store. libcurl's
/// `curl_easy_setopt` is variadic, which Swift cannot call: that is why this is C.
gw_smtp_result gw_smtp_send(
    const char *url, gw_smtp_tls tls, const char *ca_file, const char *username, const char *password,
    const char *from, const char *const *recipients, size_t recipient_count,
    const char *message, size_t message_length, long timeout_ms);

#endif
