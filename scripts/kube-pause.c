/*
 * kube-pause: the sandbox ("pause") process of every pod of the test cluster that
 * scripts/kube-up.sh starts. It holds the pod's namespaces open, reaps the zombies it inherits
 * as PID 1, and exits 0 on SIGTERM or SIGINT. Built statically by kube-up.sh into an image
 * FROM scratch, so the cluster needs no registry.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig)
{
	(void)sig;
	_exit(0);
}

static void on_child(int sig)
{
	int saved = errno;
	(void)sig;
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	errno = saved;
}

static int handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) != 0) {
		perror("kube-pause: sigaction");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "-v") == 0) {
		puts("kube-pause (swebench-run)");
		return 0;
	}
	if (getpid() != 1)
		fputs("kube-pause: warning: not PID 1, zombies of others are not mine to reap\n", stderr);
	if (handle(SIGINT, on_stop, 0) || handle(SIGTERM, on_stop, 0) ||
	    handle(SIGCHLD, on_child, SA_NOCLDSTOP | SA_RESTART))
		return 1;
	for (;;)
		pause();
}
