/* SPDX-License-Identifier: BSD-3-Clause */
/* dynproc_ports.c: ports, accept/connect, names and join within one job
 * (MPI 4.1 §11.4, §11.10.4).
 *
 * MPI_COMM_WORLD splits into A (even world ranks) and B (odd).  A's root
 * opens a port and accepts, B's root connects: the intercommunicator's
 * sizes and groups, point-to-point both ways, MPI_Allreduce and MPI_Bcast
 * across it, MPI_Comm_disconnect (MPI_COMM_NULL after).  A second accept
 * on the same port from MPI_COMM_SELF (world 0 and 1 only).  The name
 * service: world 0 publishes, everybody looks up, world 0 unpublishes, a
 * lookup then fails with MPI_ERR_NAME and a second unpublish with
 * MPI_ERR_SERVICE.  MPI_Comm_join between world 0 and 1 over a TCP
 * socket on 127.0.0.1.  Errors: a malformed port name (MPI_ERR_PORT), and
 * on Locus a port of another job, closing a port twice, accept and connect
 * on a closed port (MPI_ERR_PORT), MPI_Comm_join on a pipe (MPI_ERR_ARG).
 * With 1 rank only the name service and the errors run.
 *
 * Debian's MPICH 4.0.2 (ch4:ucx) cannot open ports ("not supported with
 * ucx netmod"), which MPI_Comm_join needs too: on MPICH only the name
 * service (with a made-up port name) and the malformed port run. */
#include "lc_test.h"

#include <arpa/inet.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

static int wrank, wsize;

static void check_inter(MPI_Comm ic, int lsize, int rsize, int color, const char *what)
{
    int flag = 0, size, rs, rank;
    LC_MPI(MPI_Comm_test_inter(ic, &flag));
    LC_MPI(MPI_Comm_size(ic, &size));
    LC_MPI(MPI_Comm_remote_size(ic, &rs));
    LC_MPI(MPI_Comm_rank(ic, &rank));
    LC_CHECK(flag && size == lsize && rs == rsize, "%s: inter %d size %d remote %d (want 1 %d %d)", what, flag, size,
             rs, lsize, rsize);
    /* Every process sends its world rank to remote rank (rank % rs) and
     * receives from every remote process that sends to it. */
    int dest = rank % rs, nrecv = 0;
    for (int j = 0; j < rs; j++)
        if (j % size == rank) nrecv++;
    MPI_Request sreq;
    LC_MPI(MPI_Isend(&wrank, 1, MPI_INT, dest, 7, ic, &sreq));
    for (int i = 0; i < nrecv; i++) {
        int v = -1;
        MPI_Status st;
        LC_MPI(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 7, ic, &st));
        int want = color == 0 ? 2 * st.MPI_SOURCE + 1 : 2 * st.MPI_SOURCE;
        LC_CHECK(v == want, "%s: from remote %d got %d, want world rank %d", what, st.MPI_SOURCE, v, want);
    }
    LC_MPI(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
    /* Allreduce over an intercommunicator: the sum of the remote group. */
    int sum = -1, want = 0;
    for (int w = 0; w < wsize; w++)
        if (w % 2 != color) want += w;
    LC_MPI(MPI_Allreduce(&wrank, &sum, 1, MPI_INT, MPI_SUM, ic));
    LC_CHECK(sum == want, "%s: allreduce gave %d, want %d", what, sum, want);
    /* Bcast from A's rank 0 to B. */
    int v = color == 0 ? 4242 : -1;
    LC_MPI(MPI_Bcast(&v, 1, MPI_INT, color == 0 ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic));
    if (color == 1) LC_CHECK(v == 4242, "%s: bcast gave %d", what, v);
}

static void test_accept_connect(void)
{
    int color = wrank % 2, lsize = color == 0 ? (wsize + 1) / 2 : wsize / 2, rsize = wsize - lsize;
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm half, ic;
    LC_MPI(MPI_Comm_split(MPI_COMM_WORLD, color, wrank, &half));
    if (wrank == 0) {
        LC_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        LC_MPI(MPI_Send(port, MPI_MAX_PORT_NAME, MPI_CHAR, 1, 1, MPI_COMM_WORLD));
    } else if (wrank == 1) {
        LC_MPI(MPI_Recv(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    /* port_name is significant at the root only: the others pass junk. */
    const char *arg = (wrank == 0 || wrank == 1) ? port : "junk";
    if (color == 0)
        LC_MPI(MPI_Comm_accept(arg, MPI_INFO_NULL, 0, half, &ic));
    else
        LC_MPI(MPI_Comm_connect(arg, MPI_INFO_NULL, 0, half, &ic));
    check_inter(ic, lsize, rsize, color, "accept/connect");
    LC_MPI(MPI_Comm_disconnect(&ic));
    LC_CHECK(ic == MPI_COMM_NULL, "MPI_Comm_disconnect did not set MPI_COMM_NULL");

    /* The same port again, one process on each side. */
    if (wrank < 2) {
        if (wrank == 0)
            LC_MPI(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        else
            LC_MPI(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic));
        int got = -1, mine = 100 + wrank;
        LC_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, ic, MPI_STATUS_IGNORE));
        LC_CHECK(got == 101 - wrank, "second connection: got %d, want %d", got, 101 - wrank);
        LC_MPI(MPI_Comm_disconnect(&ic));
    }
    if (wrank == 0) LC_MPI(MPI_Close_port(port));
    LC_MPI(MPI_Comm_free(&half));
}

static void test_names(void)
{
    const char *service = "locus-dynproc-ports-test";
    char port[MPI_MAX_PORT_NAME] = "", found[MPI_MAX_PORT_NAME] = "";
    bool mpich = lc_library_is_mpich();
    if (wrank == 0) {
        if (mpich)
            snprintf(port, sizeof(port), "made-up-port-for-mpich");
        else
            LC_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        LC_MPI(MPI_Publish_name(service, MPI_INFO_NULL, port));
    }
    LC_MPI(MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD));
    LC_MPI(MPI_Lookup_name(service, MPI_INFO_NULL, found));
    LC_CHECK(strcmp(found, port) == 0, "lookup of '%s' gave '%s', want '%s'", service, found, port);
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (wrank == 0) LC_MPI(MPI_Unpublish_name(service, MPI_INFO_NULL, port));
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
    int rc = MPI_Lookup_name(service, MPI_INFO_NULL, found);
    LC_CHECK(lc_class_of(rc) == MPI_ERR_NAME, "lookup of an unpublished name gave class %d (%s), want MPI_ERR_NAME",
             lc_class_of(rc), lc_err_str(rc));
    if (wrank == 0) {
        rc = MPI_Unpublish_name(service, MPI_INFO_NULL, port);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_SERVICE,
                 "unpublish of an unpublished name gave class %d (%s), want MPI_ERR_SERVICE", lc_class_of(rc),
                 lc_err_str(rc));
        if (!mpich) LC_MPI(MPI_Close_port(port));
    }
    LC_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

/* A connected TCP socket between world 0 (listens) and world 1. */
static int tcp_pair(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t alen = sizeof(a);
    int port = 0, fd = -1;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (wrank == 0) {
        int lfd = socket(AF_INET, SOCK_STREAM, 0);
        if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1) ||
            getsockname(lfd, (struct sockaddr *)&a, &alen))
            LC_FATAL("cannot listen on 127.0.0.1");
        port = ntohs(a.sin_port);
        LC_MPI(MPI_Send(&port, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
        fd = accept(lfd, NULL, NULL);
        close(lfd);
    } else {
        LC_MPI(MPI_Recv(&port, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        a.sin_port = htons((uint16_t)port);
        fd = socket(AF_INET, SOCK_STREAM, 0);
        if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof(a))) fd = -1;
    }
    if (fd < 0) LC_FATAL("cannot connect a TCP socket on 127.0.0.1");
    return fd;
}

static void test_join(void)
{
    if (wrank >= 2) return;
    int fd = tcp_pair();
    MPI_Comm ic;
    LC_MPI(MPI_Comm_join(fd, &ic));
    int flag = 0, rs = 0, got = -1, mine = 200 + wrank;
    LC_MPI(MPI_Comm_test_inter(ic, &flag));
    LC_MPI(MPI_Comm_remote_size(ic, &rs));
    LC_CHECK(flag && rs == 1, "join: inter %d remote size %d", flag, rs);
    LC_MPI(MPI_Sendrecv(&mine, 1, MPI_INT, 0, 4, &got, 1, MPI_INT, 0, 4, ic, MPI_STATUS_IGNORE));
    LC_CHECK(got == 201 - wrank, "join: got %d, want %d", got, 201 - wrank);
    LC_MPI(MPI_Comm_disconnect(&ic));
    close(fd);
}

static void test_errors(void)
{
    MPI_Comm ic = MPI_COMM_NULL;
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_connect("no-such-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
    LC_CHECK(rc != MPI_SUCCESS, "connect to a malformed port name succeeded");
    if (!lc_library_is_mpich()) {
        /* MPICH 4.0.2 answers a malformed port with another class
         * (MPI_ERR_OTHER) and has no notion of another job's port. */
        LC_CHECK(lc_class_of(rc) == MPI_ERR_PORT, "connect to a malformed port: class %d (%s), want MPI_ERR_PORT",
                 lc_class_of(rc), lc_err_str(rc));
        rc = MPI_Comm_connect("locus:lcotherjob:0:1", MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_PORT, "connect to another job's port: class %d (%s), want MPI_ERR_PORT",
                 lc_class_of(rc), lc_err_str(rc));
        char port[MPI_MAX_PORT_NAME];
        LC_MPI(MPI_Open_port(MPI_INFO_NULL, port));
        LC_MPI(MPI_Close_port(port));
        rc = MPI_Close_port(port);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_PORT, "closing a port twice: class %d (%s), want MPI_ERR_PORT",
                 lc_class_of(rc), lc_err_str(rc));
        rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_PORT, "accept on a closed port: class %d (%s), want MPI_ERR_PORT",
                 lc_class_of(rc), lc_err_str(rc));
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &ic);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_PORT, "connect to a closed port: class %d (%s), want MPI_ERR_PORT",
                 lc_class_of(rc), lc_err_str(rc));
        int pfd[2];
        if (pipe(pfd) == 0) {
            rc = MPI_Comm_join(pfd[1], &ic);
            LC_CHECK(lc_class_of(rc) == MPI_ERR_ARG, "join on a pipe: class %d (%s), want MPI_ERR_ARG", lc_class_of(rc),
                     lc_err_str(rc));
            close(pfd[0]);
            close(pfd[1]);
        }
        MPI_Comm w = MPI_COMM_WORLD;
        rc = MPI_Comm_disconnect(&w);
        LC_CHECK(lc_class_of(rc) == MPI_ERR_COMM, "disconnecting MPI_COMM_WORLD: class %d (%s), want MPI_ERR_COMM",
                 lc_class_of(rc), lc_err_str(rc));
    }
    LC_CHECK(ic == MPI_COMM_NULL, "a failed connect changed newcomm");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_size(MPI_COMM_WORLD, &wsize);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    bool ports = !lc_library_is_mpich();
    if (wsize >= 2 && ports) test_accept_connect();
    test_names();
    if (wsize >= 2 && ports) test_join();
    test_errors();
    return lc_finish();
}
