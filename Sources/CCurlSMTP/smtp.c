#include "CCurlSMTP.h"

#include <curl/curl.h>
#include <pthread.h>
#include <string.h>

/// What the read callback hands libcurl: the message, from `offset` on.
typedef struct {
    const char *bytes;
    size_t length;
    size_t offset;
} gw_upload;

static size_t gw_read(char *buffer, size_t size, size_t count, void *context) {
    gw_upload *upload = context;
    size_t room = size * count;
    size_t left = upload->length - upload->offset;
    size_t taken = left < room ? left : room;
    memcpy(buffer, upload->bytes + upload->offset, taken);
    upload->offset += taken;
    return taken;
}

static pthread_once_t gw_once = PTHREAD_ONCE_INIT;
static void gw_global_init(void) { curl_global_init(CURL_GLOBAL_DEFAULT); }

gw_smtp_result gw_smtp_send(
    const char *url, gw_smtp_tls tls, const char *ca_file, const char *username, const char *password,
    const char *from, const char *const *recipients, size_t recipient_count,
    const char *message, size_t message_length, long timeout_ms) {
    gw_smtp_result result = {0, 0, {0}};
    pthread_once(&gw_once, gw_global_init);
    CURL *curl = curl_easy_init();
    if (curl == NULL) {
        result.curl_code = CURLE_FAILED_INIT;
        strncpy(result.error, "libcurl could not start", sizeof result.error - 1);
        return result;
    }
    struct curl_slist *to = NULL;
    for (size_t i = 0; i < recipient_count; i++) to = curl_slist_append(to, recipients[i]);
    gw_upload upload = {message, message_length, 0};
    char error[CURL_ERROR_SIZE] = {0};

    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    if (tls != GW_SMTP_TLS_OFF) {
        curl_easy_setopt(curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
        if (ca_file != NULL) curl_easy_setopt(curl, CURLOPT_CAINFO, ca_file);
    }
    if (username != NULL) curl_easy_setopt(curl, CURLOPT_USERNAME, username);
    if (password != NULL) curl_easy_setopt(curl, CURLOPT_PASSWORD, password);
    curl_easy_setopt(curl, CURLOPT_MAIL_FROM, from);
    curl_easy_setopt(curl, CURLOPT_MAIL_RCPT, to);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, gw_read);
    curl_easy_setopt(curl, CURLOPT_READDATA, &upload);
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)message_length);

    CURLcode code = curl_easy_perform(curl);
    result.curl_code = (int)code;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &result.smtp_code);
    if (code != CURLE_OK) {
        strncpy(result.error, error[0] ? error : curl_easy_strerror(code), sizeof result.error - 1);
    }
    curl_slist_free_all(to);
    curl_easy_cleanup(curl);
    return result;
}
