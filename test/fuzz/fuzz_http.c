/* Fuzz target for the HTTP layer: raw bytes sent to the server's plain listener (the health
 * port), which runs libmicrohttpd's parser and our framing checks, probe routing and body
 * caps (server/http.c, server/conn.c) as the HTTPS port does, minus TLS. The server runs
 * in-process; each input is one connection: sent, half-closed, read until closed or quiet.
 * Nothing may crash, leak or trip a sanitizer, and the server must still answer a probe
 * after every input. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "config/config.h"
#include "handlers/registry.h"
#include "kube/cluster.h"
#include "log/log.h"
#include "server/http.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct wh_config cfg;
static struct wh_cluster *cluster;
static struct wh_handler_ctx ctx;
static struct wh_http *http;
static int port;

static void start(void)
{
    wh_json_init();
    wh_log_setup(WH_LOG_ERROR, WH_LOG_TEXT);
    struct wh_errbuf eb = {{0}};
    char *argv[] = {"kruise-webhook",
                    "--port=0",
                    "--bind-address=127.0.0.1",
                    "--health-addr=127.0.0.1:0",
                    "--metrics-addr=0",
                    "--threads=1",
                    NULL};
    json_t *none = json_array();
    if (wh_config_load(&cfg, 6, argv, &eb) ||
        wh_cluster_new_standalone_objects(none, &cluster, &eb) ||
        wh_routes_setup(&cfg, cluster, &eb) || wh_cluster_start(cluster, &eb))
        abort();
    json_decref(none);
    ctx = (struct wh_handler_ctx){.cfg = &cfg, .cluster = cluster};
    if (wh_http_start(&cfg, &ctx, &http, &eb)) {
        fprintf(stderr, "%s\n", eb.msg);
        abort();
    }
    port = wh_http_health_port(http);
}

/* Sends data on a new connection, half-closes, reads until the server closes or is quiet for
 * quiet_ms; returns bytes received. */
static size_t exchange(const uint8_t *data, size_t size, char *head, size_t headsz, int quiet_ms)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)
        abort();
    size_t off = 0;
    while (off < size) {
        ssize_t w = send(fd, data + off, size - off, MSG_NOSIGNAL);
        if (w <= 0)
            break; /* the server closed early (a cap): fine */
        off += (size_t)w;
    }
    shutdown(fd, SHUT_WR);
    size_t got = 0;
    char buf[4096];
    for (;;) {
        /* A short silence ends the exchange: libmicrohttpd does not notice a half-close it
         * has not read yet (edge-triggered epoll), so a kept-alive connection, or one whose
         * request is incomplete, stays open until its deadline (server/conn.c closes it). An
         * answer still on its way is not needed: the server has the bytes, and the probe
         * below shows it still works. */
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (poll(&p, 1, quiet_ms) <= 0)
            break;
        ssize_t r = recv(fd, buf, sizeof(buf), 0);
        if (r <= 0)
            break;
        if (got < headsz) {
            size_t n = (size_t)r < headsz - got ? (size_t)r : headsz - got;
            memcpy(head + got, buf, n);
        }
        got += (size_t)r;
    }
    close(fd);
    return got;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!http)
        start();
    char head[16] = "";
    exchange(data, size, head, sizeof(head) - 1, 5);
    static const char probe[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    char answer[16] = "";
    /* The probe asks for a close: its answer is waited for, however loaded the machine. */
    exchange((const uint8_t *)probe, sizeof(probe) - 1, answer, sizeof(answer) - 1, 10000);
    if (strncmp(answer, "HTTP/1.1 200", 12) != 0) {
        fprintf(stderr, "the server stopped answering probes: %s\n", answer);
        abort();
    }
    return 0;
}
