// SPDX-License-Identifier: GPL-2.0
/* gspctl mps: NVIDIA's MPS control daemon, started, stopped, asked (gspctl.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gspctl.h"

#define MPS_CONTROL	"nvidia-cuda-mps-control"
#define MPS_PIPE_DEFAULT "/tmp/nvidia-mps"	/* NVIDIA's defaults */
#define MPS_LOG_DEFAULT	"/var/log/nvidia-mps"

/*
 * MPS. The control daemon reads CUDA_MPS_PIPE_DIRECTORY and
 * CUDA_MPS_LOG_DIRECTORY from its environment, which it inherits from us;
 * gspctl only checks that they name directories and finds the control
 * pipe in the first.
 */
static const char *mps_dir(const char *var, const char *def)
{
	const char *d = getenv(var);

	return d && *d ? d : def;
}

/*
 * Runs nvidia-cuda-mps-control with @arg (or none), @input on its stdin
 * (or ours), its output to ours. Its exit status, or -1 after saying why
 * it could not run.
 */
static int mps_run(const char *arg, const char *input)
{
	char *argv[] = { MPS_CONTROL, (char *)arg, NULL };
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 }, st, err;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa))
		return -1;
	if (input) {
		if (pipe2(p, O_CLOEXEC)) {
			fprintf(stderr, "gspctl: pipe: %s\n", strerror(errno));
			posix_spawn_file_actions_destroy(&fa);
			return -1;
		}
		posix_spawn_file_actions_adddup2(&fa, p[0], STDIN_FILENO);
	}
	fflush(stdout);
	err = posix_spawnp(&pid, MPS_CONTROL, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (input) {
		close(p[0]);
		if (!err && write(p[1], input, strlen(input)) < 0)
			err = errno;
		close(p[1]);
	}
	if (err == ENOENT) {
		fprintf(stderr, "gspctl: %s not found in PATH; install NVIDIA's MPS tools (part of the driver) or add their directory to PATH\n",
			MPS_CONTROL);
		return -1;
	}
	if (err) {
		fprintf(stderr, "gspctl: cannot run %s: %s\n", MPS_CONTROL,
			strerror(err));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "gspctl: %s was killed by signal %d\n",
			MPS_CONTROL, WTERMSIG(st));
		return -1;
	}
	return WEXITSTATUS(st);
}

/* 1 if the control daemon's pipe is there. */
static bool mps_running(const char *pipe_dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/control", pipe_dir);
	return !stat(path, &st) && S_ISFIFO(st.st_mode);
}

int cmd_mps(const char *what)
{
	const char *pipe_dir = mps_dir("CUDA_MPS_PIPE_DIRECTORY",
				       MPS_PIPE_DEFAULT);
	const char *log_dir = mps_dir("CUDA_MPS_LOG_DIRECTORY",
				      MPS_LOG_DEFAULT);
	static const char *const vars[] = { "CUDA_MPS_PIPE_DIRECTORY",
					    "CUDA_MPS_LOG_DIRECTORY" };
	struct stat st;
	size_t i;
	int r;

	/* A control daemon that exits unread must not kill us mid-write. */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < 2; i++) {
		const char *d = getenv(vars[i]);

		if (d && *d && (stat(d, &st) || !S_ISDIR(st.st_mode))) {
			fprintf(stderr, "gspctl: %s=%s is not a directory; create it (mkdir -p) or unset it\n",
				vars[i], d);
			return EXIT_FAIL;
		}
	}
	if (!strcmp(what, "start")) {
		if (mps_running(pipe_dir)) {
			printf("mps: already running (%s/control)\n", pipe_dir);
			return 0;
		}
		r = mps_run("-d", NULL);
		if (r) {
			if (r > 0)
				fprintf(stderr, "gspctl: %s -d failed (exit %d); see %s/control.log\n",
					MPS_CONTROL, r, log_dir);
			return EXIT_FAIL;
		}
		printf("mps: started (pipes in %s, logs in %s)\n", pipe_dir,
		       log_dir);
		return 0;
	}
	if (!mps_running(pipe_dir)) {
		fprintf(stderr, "gspctl: mps: not running (no %s/control)\n",
			pipe_dir);
		return EXIT_FAIL;
	}
	if (!strcmp(what, "stop")) {
		r = mps_run(NULL, "quit\n");
		if (r) {
			if (r > 0)
				fprintf(stderr, "gspctl: 'quit' to %s failed (exit %d); see %s/control.log\n",
					MPS_CONTROL, r, log_dir);
			return EXIT_FAIL;
		}
		printf("mps: stopped\n");
		return 0;
	}
	printf("mps: running (%s/control), logs in %s\nservers:\n", pipe_dir,
	       log_dir);
	r = mps_run(NULL, "get_server_list\n");
	if (r) {
		if (r > 0)
			fprintf(stderr, "gspctl: 'get_server_list' to %s failed (exit %d)\n",
				MPS_CONTROL, r);
		return EXIT_FAIL;
	}
	return 0;
}

