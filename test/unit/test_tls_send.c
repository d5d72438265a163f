#include "test/unit/test.h"

#include <errno.h>
#include <fcntl.h>
#include <gnutls/gnutls.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server/tls.h"
#include "test/support/tls_fixture.h"

/* A server and a client TLS session over a socketpair, handshaken in this thread, the server
 * watched as libmicrohttpd's connections are (transport = the descriptor, then
 * wh_tls_watch_session). */
struct pair {
    int sfd, cfd;
    gnutls_certificate_credentials_t scred, ccred;
    gnutls_session_t server, client;
    struct wh_tls_conn *watched;
};

static bool pair_open(struct pair *p, const struct wh_tls_fixture *fx)
{
    int sv[2];
    memset(p, 0, sizeof(*p));
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
        return false;
    p->sfd = sv[0];
    p->cfd = sv[1];
    fcntl(p->sfd, F_SETFL, O_NONBLOCK);
    fcntl(p->cfd, F_SETFL, O_NONBLOCK);
    if (gnutls_certificate_allocate_credentials(&p->scred) < 0 ||
        gnutls_certificate_set_x509_key_file(p->scred, fx->cert_file, fx->key_file,
                                             GNUTLS_X509_FMT_PEM) < 0 ||
        gnutls_certificate_allocate_credentials(&p->ccred) < 0)
        return false;
    gnutls_init(&p->server, GNUTLS_SERVER | GNUTLS_NONBLOCK);
    gnutls_init(&p->client, GNUTLS_CLIENT | GNUTLS_NONBLOCK);
    gnutls_set_default_priority(p->server);
    gnutls_set_default_priority(p->client);
    gnutls_credentials_set(p->server, GNUTLS_CRD_CERTIFICATE, p->scred);
    gnutls_credentials_set(p->client, GNUTLS_CRD_CERTIFICATE, p->ccred);
    gnutls_transport_set_int(p->server, p->sfd);
    gnutls_transport_set_int(p->client, p->cfd);
    p->watched = wh_tls_watch_session(p->server);
    int sr = GNUTLS_E_AGAIN, cr = GNUTLS_E_AGAIN;
    for (int i = 0; i < 1000 && (sr != 0 || cr != 0); i++) {
        if (cr != 0)
            cr = gnutls_handshake(p->client);
        if (sr != 0)
            sr = gnutls_handshake(p->server);
        if ((sr < 0 && sr != GNUTLS_E_AGAIN) || (cr < 0 && cr != GNUTLS_E_AGAIN))
            return false;
    }
    return sr == 0 && cr == 0;
}

static void pair_close(struct pair *p)
{
    if (p->server)
        gnutls_deinit(p->server);
    if (p->client)
        gnutls_deinit(p->client);
    free(p->watched);
    if (p->scred)
        gnutls_certificate_free_credentials(p->scred);
    if (p->ccred)
        gnutls_certificate_free_credentials(p->ccred);
    close(p->sfd);
    close(p->cfd);
}

static bool readable(int fd)
{
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    return poll(&pfd, 1, 0) == 1;
}

/* Reads everything the client can decrypt now into buf; returns the bytes. */
static size_t client_read(struct pair *p, char *buf, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        ssize_t r = gnutls_record_recv(p->client, buf + n, cap - n);
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    return n;
}

/* The fixture's certificate, a handshaken pair, the session tickets read. */
static bool setup(struct wh_tls_fixture *fx, struct pair *p)
{
    struct wh_errbuf eb = {{0}};
    if (wh_tls_fixture_init(fx, false, &eb) != WH_OK || !pair_open(p, fx))
        return false;
    while (readable(p->cfd))
        client_read(p, (char[64]){0}, 64);
    return true;
}

/* Issue 28: libmicrohttpd sends an answer's head and body in two gnutls_record_send calls;
 * the head's record is held until the body's comes, and both leave in one write, in order. */
TEST(tls_answer_head_leaves_with_its_body)
{
    struct wh_tls_fixture fx = {0};
    struct pair p = {0};
    CHECK(setup(&fx, &p));
    if (!p.watched)
        return;

    const char head[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", body[] = "hello";
    wh_tls_hold_head(p.server);
    CHECK_EQ_INT(gnutls_record_send(p.server, head, strlen(head)), (int)strlen(head));
    CHECK(!readable(p.cfd)); /* held */
    CHECK_EQ_INT(gnutls_record_send(p.server, body, strlen(body)), (int)strlen(body));
    char got[256] = "";
    CHECK_EQ_INT((int)client_read(&p, got, sizeof(got) - 1), (int)(strlen(head) + strlen(body)));
    CHECK_EQ_STR(got, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello");

    /* Without a hold, each record goes at once. */
    CHECK_EQ_INT(gnutls_record_send(p.server, head, strlen(head)), (int)strlen(head));
    CHECK(readable(p.cfd));
    memset(got, 0, sizeof(got));
    CHECK_EQ_INT((int)client_read(&p, got, sizeof(got) - 1), (int)strlen(head));
    pair_close(&p);
    wh_tls_fixture_fini(&fx);
}

/* A full socket: the held head and the body wait, nothing is lost or reordered, and both go
 * once the client reads (the body's send is retried, as libmicrohttpd does on EAGAIN). */
TEST(tls_held_head_survives_a_full_socket)
{
    struct wh_tls_fixture fx = {0};
    struct pair p = {0};
    CHECK(setup(&fx, &p));
    if (!p.watched)
        return;
    static char filler[4096], body[8192];
    memset(filler, 'f', sizeof(filler));
    for (size_t i = 0; i < sizeof(body); i++)
        body[i] = (char)('a' + i % 26);
    size_t queued = 0;
    int r = 0;
    for (int i = 0; i < 100000; i++) { /* fill the socket */
        r = (int)gnutls_record_send(p.server, filler, sizeof(filler));
        if (r < 0)
            break;
        queued += (size_t)r;
    }
    CHECK_EQ_INT(r, GNUTLS_E_AGAIN);
    /* gnutls keeps the record it could not write; the client reads one record at a time
     * until it is out, so the socket stays all but full. */
    static char got[8 << 20];
    size_t have = 0;
    for (int i = 0; i < 100000; i++) {
        r = (int)gnutls_record_send(p.server, NULL, 0);
        if (r != GNUTLS_E_AGAIN)
            break;
        ssize_t n = gnutls_record_recv(p.client, got + have, sizeof(got) - have);
        have += n > 0 ? (size_t)n : 0;
    }
    CHECK(r >= 0);
    size_t want = queued + sizeof(filler) + 4 + sizeof(body);
    wh_tls_hold_head(p.server);
    CHECK_EQ_INT(gnutls_record_send(p.server, "HEAD", 4), 4);
    int tries = 0;
    for (; tries < 100000; tries++) {
        r = (int)gnutls_record_send(p.server, tries ? NULL : body, tries ? 0 : sizeof(body));
        if (r != GNUTLS_E_AGAIN)
            break;
        ssize_t n = gnutls_record_recv(p.client, got + have, sizeof(got) - have);
        have += n > 0 ? (size_t)n : 0;
    }
    CHECK(tries > 0); /* the socket was full: the body waited */
    CHECK_EQ_INT(r, (int)sizeof(body));
    for (int i = 0; i < 1000 && have < want; i++)
        have += client_read(&p, got + have, sizeof(got) - have);
    CHECK_EQ_INT((int)have, (int)want);
    CHECK(have >= 4 + sizeof(body) &&
          memcmp(got + have - sizeof(body) - 4, "HEAD", 4) == 0 &&
          memcmp(got + have - sizeof(body), body, sizeof(body)) == 0);
    for (size_t i = 0; i + sizeof(body) + 4 < have; i++) {
        if (got[i] != 'f') {
            CHECK(got[i] == 'f');
            break;
        }
    }
    pair_close(&p);
    wh_tls_fixture_fini(&fx);
}

/* Issue 28: libmicrohttpd offers an answer's whole body to gnutls_record_send once per pass of
 * its loop; on a watched session the call sends record after record until the socket is full
 * and says how much left, as send() would, so a big answer goes in one pass. What the socket
 * cannot take is offered again from where it stopped (libmicrohttpd's retry), and the client
 * reads every byte once, in order. A session this server does not watch sends one record. */
TEST(tls_an_answer_leaves_in_one_call)
{
    struct wh_tls_fixture fx = {0};
    struct pair p = {0};
    CHECK(setup(&fx, &p));
    if (!p.watched)
        return;
    enum { SMALL = 100 * 1000, BIG = 3 << 20 };
    static char body[BIG], got[BIG];
    for (size_t i = 0; i < sizeof(body); i++)
        body[i] = (char)('a' + (i * 7 + i / 4099) % 26);

    /* What the socket takes leaves at once: more than one record. */
    CHECK_EQ_INT((int)gnutls_record_send(p.server, body, SMALL), SMALL);
    size_t have = 0;
    for (int i = 0; i < 1000 && have < SMALL; i++)
        have += client_read(&p, got + have, SMALL - have);
    CHECK_EQ_INT((int)have, SMALL);
    CHECK(memcmp(got, body, SMALL) == 0);

    /* More than the socket takes: a short count, then the rest from there. */
    size_t sent = 0;
    have = 0;
    int calls = 0, short_counts = 0;
    while (sent < sizeof(body) && calls < 100000) {
        calls++;
        ssize_t w = gnutls_record_send(p.server, body + sent, sizeof(body) - sent);
        if (w > 0) {
            short_counts += (size_t)w < sizeof(body) - sent;
            sent += (size_t)w;
        } else {
            CHECK(w == GNUTLS_E_AGAIN);
            if (w != GNUTLS_E_AGAIN)
                break;
        }
        have += client_read(&p, got + have, sizeof(got) - have);
    }
    for (int i = 0; i < 1000 && have < sizeof(body); i++)
        have += client_read(&p, got + have, sizeof(got) - have);
    CHECK(short_counts > 0);
    CHECK_EQ_INT((int)sent, BIG);
    CHECK_EQ_INT((int)have, BIG);
    CHECK(memcmp(got, body, BIG) == 0);

    /* The client's session is not watched: one record per call, as gnutls sends. */
    ssize_t w = gnutls_record_send(p.client, body, SMALL);
    CHECK(w > 0 && w <= 16384);
    pair_close(&p);
    wh_tls_fixture_fini(&fx);
}
