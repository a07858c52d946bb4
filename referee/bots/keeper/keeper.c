/* The keeper of a kept jail: trusted code that starts a fresh bot process for every game (docs/jail.md).

   bwrap makes the jail once (namespaces, uid, seccomp, rlimits and control group applied to this process, which
   every game inherits) and runs this program in it, with CAP_SYS_ADMIN, CAP_SETUID, CAP_SETGID and CAP_SETPCAP
   and nothing else. For each game the referee sends one message on fd 3 (a SOCK_SEQPACKET socket): the words
   "game UID" (the bot's uid for this game alone, never 0) and descriptors: the bot's stdin, stdout and stderr, then one detached mount for each --image (a
   folder of an image mounted for this game alone, open_tree'd by the referee), in order, then the game's control
   group's cgroup.procs files (one per hierarchy, opened for writing by the referee), which G joins. The keeper then clones the game's init ("G") into new mount,
   PID, IPC and network namespaces and answers with a pidfd of it. G, still trusted and still root, gives the game
   a fresh /proc (with the jail's fixed counters over it), fresh tmpfs for home, /tmp and /dev/shm, the fresh
   images at their places and a loopback of its own, then forks the bot, which drops every privilege as setpriv
   does for a fresh jail (its uid and gid, no groups, no capabilities in any set, no new privileges), checks
   that none is left, and runs the bot's command. G reaps; when the bot ends G ends, and the kernel
   kills whatever else of the game is left (G is its PID namespace's init). The keeper answers "exit N" for each
   game it reaps, in order. When the referee closes the socket the keeper ends, and with it the jail.

   The bot never runs in the keeper's namespaces: it cannot see the keeper (another PID namespace), and the
   keeper and G run as root, a uid the bot cannot signal or trace. Nothing a game writes outlives it: its
   namespaces, mounts and processes go with G.

   Arguments (all fixed for the jail's life):
     --channel FD               the referee's socket
     --weaken WHAT              keep that state (spaces, ipc, pid or devpts) from game to game: only for the attack
                                tests, which show that each attack succeeds without its fence (never set by a run)
     --tmpfs PATH MODE BYTES    a fresh tmpfs for each game (repeatable)
     --carry PATH               a mount under /proc carried onto each game's fresh /proc (the fixed counters)
     --image TARGET             where the game's next image folder is mounted, read-only (repeatable)
     --groups N                 how many cgroup.procs files each game's message holds after its images
     --chdir DIR                the bot's working folder
     -- COMMAND...              the bot's command
*/
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ITEMS 128
#define PIPES 3 /* stdin, stdout, stderr */

struct tmpfs { const char *path, *mode, *bytes; };


static struct tmpfs tmpfs[MAX_ITEMS];
static const char *carry[MAX_ITEMS];
static const char *images[MAX_ITEMS];
static int n_tmpfs, n_carry, n_images, n_groups;
static const char *workdir = "/";
static int channel = -1;
static long bot_uid = -1; /* this game's (a uid of its own each game: docs/jail.md) */
static int share_spaces, share_ipc, share_pid, share_devpts; /* --weaken: for the attack tests only (docs/jail.md) */
static char **command;

static void die(const char *what) {
    dprintf(2, "keeper: %s: %s\n", what, strerror(errno));
    _exit(127);
}

static void parse(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int left = argc - i - 1;
        if (!strcmp(a, "--") && left > 0) { command = argv + i + 1; return; }
        if (!strcmp(a, "--tmpfs") && left >= 3 && n_tmpfs < MAX_ITEMS) {
            tmpfs[n_tmpfs++] = (struct tmpfs){argv[i + 1], argv[i + 2], argv[i + 3]};
            i += 3;
        } else if (!strcmp(a, "--carry") && left >= 1 && n_carry < MAX_ITEMS && !strncmp(argv[i + 1], "/proc/", 6)) {
            carry[n_carry++] = argv[++i];
        } else if (!strcmp(a, "--image") && left >= 1 && n_images < MAX_ITEMS - PIPES - 8) {
            images[n_images++] = argv[++i];
        } else if (!strcmp(a, "--groups") && left >= 1) {
            n_groups = atoi(argv[++i]);
            if (n_groups < 0 || n_groups > 8) break;
        } else if (!strcmp(a, "--chdir") && left >= 1) {
            workdir = argv[++i];
        } else if (!strcmp(a, "--channel") && left >= 1) {
            channel = atoi(argv[++i]);
        } else if (!strcmp(a, "--weaken") && left >= 1) {
            const char *what = argv[++i];
            if (!strcmp(what, "spaces")) share_spaces = 1;
            else if (!strcmp(what, "ipc")) share_ipc = 1;
            else if (!strcmp(what, "pid")) share_pid = 1;
            else if (!strcmp(what, "devpts")) share_devpts = 1;
            else break;
        } else {
            dprintf(2, "keeper: bad argument %s\n", a);
            _exit(127);
        }
    }
    dprintf(2, "keeper: bad arguments (no command after --?)\n");
    _exit(127);
}

/* A copy of the mount at PATH (relative to DIR), detached, to attach elsewhere. */
static int clone_tree(int dir, const char *path) {
    int fd = (int)syscall(SYS_open_tree, dir, path, OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (fd < 0) die(path);
    return fd;
}

static void attach(int tree, const char *target, unsigned read_only) {
    struct mount_attr attr = {.attr_set = read_only | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &attr, sizeof attr) < 0) die(target);
    if (syscall(SYS_move_mount, tree, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0) die(target);
    close(tree);
}

/* A fresh /proc for the game's PID namespace, read-only where bwrap makes it so, with the jail's fixed files
   carried over from the jail's /proc (still reached, once covered, from a descriptor of it: one file at a time,
   so that a bot's low limit on open files holds here too). */
static void fresh_proc(void) {
    int jails = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (jails < 0) die("/proc");
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0) die("/proc");
    static const char *read_only[] = {"/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"};
    for (size_t i = 0; i < sizeof read_only / sizeof *read_only; i++)
        if (access(read_only[i], F_OK) == 0) attach(clone_tree(AT_FDCWD, read_only[i]), read_only[i], MOUNT_ATTR_RDONLY);
    for (int i = 0; i < n_carry; i++) attach(clone_tree(jails, carry[i] + strlen("/proc/")), carry[i], MOUNT_ATTR_RDONLY);
    close(jails);
}

static void fresh_spaces(void) {
    char options[96];
    for (int i = 0; i < n_tmpfs; i++) {
        snprintf(options, sizeof options, "mode=%s,size=%s", tmpfs[i].mode, tmpfs[i].bytes);
        if (mount("tmpfs", tmpfs[i].path, "tmpfs", MS_NOSUID | MS_NODEV, options) < 0) die(tmpfs[i].path);
    }
}

/* A devpts instance of the game's own, as bwrap's --dev makes for a fresh jail (its /dev/ptmx is a link to
   pts/ptmx). Not the jail's: a pseudo-terminal whose master a game leaves in flight in a cycle of Unix sockets
   outlives the game's processes until the kernel collects the cycle, and in a kept instance the next game
   would find it in /dev/pts, with what was written to it. */
static void fresh_devpts(void) {
    if (mount("devpts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") < 0)
        die("/dev/pts");
}

/* G joins the game's control group, which the referee made for this game alone: what a game leaves charged to
   its group after its processes are gone (memory held by descriptors left in flight in a cycle of Unix sockets,
   until the kernel collects it) is not counted against the next game's limits. */
static void join_groups(const int *procs) {
    for (int i = 0; i < n_groups; i++) {
        if (write(procs[i], "0", 1) != 1) die("control group");
        close(procs[i]);
    }
}

/* The folders down to PATH, where a fresh tmpfs (the host's /tmp, say, holding the bot's folder) has none. */
static void make_folders(const char *path) {
    char folder[4096];
    size_t n = strlen(path);
    if (n >= sizeof folder) { errno = ENAMETOOLONG; die(path); }
    memcpy(folder, path, n + 1);
    for (char *slash = strchr(folder + 1, '/');; slash = strchr(slash + 1, '/')) {
        if (slash) *slash = 0;
        if (mkdir(folder, 0755) < 0 && errno != EEXIST) die(folder);
        if (!slash) return;
        *slash = '/';
    }
}

static void fresh_images(const int *trees) {
    for (int i = 0; i < n_images; i++) {
        make_folders(images[i]);
        attach(trees[i], images[i], MOUNT_ATTR_RDONLY);
    }
}

static void loopback_up(void) {
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct ifreq lo = {0};
    strcpy(lo.ifr_name, "lo");
    if (s < 0 || ioctl(s, SIOCGIFFLAGS, &lo) < 0) die("loopback");
    lo.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &lo) < 0) die("loopback");
    close(s);
}

/* What setpriv --reuid=UID --regid=UID --clear-groups --no-new-privs --inh-caps=-all --bounding-set=-all does
   for a fresh jail's bot (without the exec of setpriv: 1.5 ms a start), then a check that nothing is left. */
static void drop_privileges(void) {
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++)
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0) die("bounding set");
    if (setgroups(0, NULL) < 0) die("setgroups");
    if (setresgid(bot_uid, bot_uid, bot_uid) < 0) die("setresgid");
    if (setresuid(bot_uid, bot_uid, bot_uid) < 0) die("setresuid"); /* (from root: no capability left) */
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct caps[2] = {{0, 0, 0}, {0, 0, 0}};
    if (syscall(SYS_capset, &header, caps) < 0) die("capset"); /* the inheritable set too */
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0) die("ambient capabilities");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) die("no_new_privs");
    uid_t r, e, s;
    gid_t gr, ge, gs;
    if (syscall(SYS_capget, &header, caps) < 0 || getresuid(&r, &e, &s) < 0 || getresgid(&gr, &ge, &gs) < 0) die("check");
    for (int i = 0; i < 2; i++)
        if (caps[i].effective || caps[i].permitted || caps[i].inheritable) { errno = EPERM; die("capabilities left"); }
    if (r != (uid_t)bot_uid || e != r || s != r || gr != (gid_t)bot_uid || ge != gr || gs != gr || getgroups(0, NULL) != 0
        || prctl(PR_CAPBSET_READ, 0, 0, 0, 0) != 0 || prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1) {
        errno = EPERM;
        die("privileges left");
    }
}

/* The bot's process: its pipes as 0-2, nothing else open, a session of its own, its uid, then its command. */
static void run_bot(const int *fds) {
    for (int i = 0; i < 3; i++)
        if (dup2(fds[i], i) < 0) die("dup2");
    if (syscall(SYS_close_range, 3, ~0U, 0) < 0) die("close_range");
    if (setsid() < 0) die("setsid");
    if (chdir(workdir) < 0) die(workdir);
    drop_privileges();
    execv(command[0], command);
    die(command[0]);
}

/* The referee stops a game by SIGTERM, then SIGKILL, to G's group: the init of a PID namespace gets a signal from
   outside only if it handles it, and G's end ends the game. (The bot cannot signal G: another uid.) */
static void end_game(int sig) { _exit(128 + sig); }

/* G: the game's init. Sets the game's world up, starts the bot, reaps until the bot ends; its status is G's. */
static int game(const int *fds) {
    close(channel);
    if (prctl(PR_SET_NAME, "game-init", 0, 0, 0) < 0) die("name");
    if (dup2(fds[2], 2) < 0) die("stderr"); /* what goes wrong here is told in the bot's log */
    if (setpgid(0, 0) < 0) die("setpgid"); /* the referee kills the game by this group: G, and so its namespace */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0) die("pdeathsig");
    join_groups(fds + PIPES + n_images);
    if (signal(SIGTERM, end_game) == SIG_ERR) die("signal");
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) die("private /");
    if (!share_pid) fresh_proc();
    if (!share_spaces) fresh_spaces();
    if (!share_devpts) fresh_devpts();
    fresh_images(fds + PIPES);
    loopback_up();
    pid_t bot = fork();
    if (bot < 0) die("fork");
    if (bot == 0) {
        signal(SIGTERM, SIG_DFL);
        run_bot(fds);
    }
    for (int i = 0; i < 3; i++) close(fds[i]);
    for (;;) {
        int status;
        pid_t done = wait(&status);
        if (done == bot) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); /* as bwrap */
        if (done < 0 && errno != EINTR) return 127;
    }
}

/* The next game: its descriptors in FDS and its uid in bot_uid; 0 once the referee has closed the channel. */
static int receive(int *fds) {
    char word[32];
    char control[CMSG_SPACE(MAX_ITEMS * sizeof(int))];
    struct iovec data = {word, sizeof word};
    struct msghdr msg = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    ssize_t n = recvmsg(channel, &msg, MSG_CMSG_CLOEXEC);
    if (n <= 0) return 0; /* the referee closed the channel: the jail ends */
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    char *end = NULL;
    if (n > 5 && n < (ssize_t)sizeof word && !memcmp(word, "game ", 5)) {
        word[n] = 0;
        errno = 0;
        bot_uid = strtol(word + 5, &end, 10);
    }
    if (!end || *end || errno || bot_uid <= 0 || bot_uid > 0x7fffffff || !c || c->cmsg_type != SCM_RIGHTS
        || c->cmsg_len != CMSG_LEN((PIPES + n_images + n_groups) * sizeof(int)) || (msg.msg_flags & MSG_CTRUNC)) {
        dprintf(2, "keeper: a message that is not a game\n");
        _exit(127);
    }
    memcpy(fds, CMSG_DATA(c), (PIPES + n_images + n_groups) * sizeof(int));
    return 1;
}

static void send_fd(const char *word, int fd) {
    char control[CMSG_SPACE(sizeof(int))] = {0};
    struct iovec data = {(void *)word, strlen(word)};
    struct msghdr msg = {.msg_iov = &data, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    if (sendmsg(channel, &msg, MSG_NOSIGNAL) < 0) _exit(0);
}

static void say(const char *text) {
    if (send(channel, text, strlen(text), MSG_NOSIGNAL) < 0) _exit(0);
}

int main(int argc, char **argv) {
    parse(argc, argv);
    if (prctl(PR_SET_NAME, "keeper", 0, 0, 0) < 0) die("name"); /* (run from /proc/self/fd/N, it is named "N") */
    if (channel < 3 || fcntl(channel, F_SETFD, FD_CLOEXEC) < 0) die("channel");
    /* Nothing else of the referee's or bwrap's stays open (the descriptor this program was run from among them). */
    if (channel > 3 && syscall(SYS_close_range, 3, channel - 1, 0) < 0) die("close_range");
    if (syscall(SYS_close_range, channel + 1, ~0U, 0) < 0) die("close_range");
    unsigned long flags = CLONE_NEWNS | CLONE_NEWNET | SIGCHLD;
    if (!share_ipc) flags |= CLONE_NEWIPC;
    if (!share_pid) flags |= CLONE_NEWPID;
    int fds[MAX_ITEMS];
    while (receive(fds)) {
        pid_t g = (pid_t)syscall(SYS_clone, flags, 0, 0, 0, 0);
        if (g < 0) die("clone");
        if (g == 0) _exit(game(fds));
        for (int i = 0; i < PIPES + n_images + n_groups; i++) close(fds[i]);
        int pidfd = (int)syscall(SYS_pidfd_open, g, 0);
        if (pidfd < 0) die("pidfd_open");
        send_fd("started", pidfd);
        close(pidfd);
        int status;
        while (waitpid(g, &status, 0) < 0)
            if (errno != EINTR) die("waitpid");
        char text[32];
        if (WIFEXITED(status)) snprintf(text, sizeof text, "exit %d", WEXITSTATUS(status));
        else snprintf(text, sizeof text, "signal %d", WTERMSIG(status));
        say(text);
    }
    return 0;
}
