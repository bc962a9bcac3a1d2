/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspctl predict and gspctl admit (gspctl_admit.c): the Prophet
 * predictor on solo traces, offline; no arbiter is involved. Each takes
 * the command's own argv (argv[0] is the command's name) and returns
 * gspctl's exit status.
 */
#ifndef GSPCTL_ADMIT_H
#define GSPCTL_ADMIT_H

int gspctl_predict(int argc, char **argv);
int gspctl_admit(int argc, char **argv);

#endif /* GSPCTL_ADMIT_H */
