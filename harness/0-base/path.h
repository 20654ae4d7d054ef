/* Finding executables as execvp does. */
#pragma once

#include <stddef.h>

/* Resolves a command name the way execvp would: a name with a '/' is checked as it is,
 * another is searched in PATH (the system's default path when PATH is unset; an empty
 * entry is the current directory). Returns 0 with the malloc'd path of an executable
 * regular file in *ret_path, -ENOENT (not found), -EACCES (found, but not executable)
 * or -ENOMEM. */
int pmc_find_executable(const char *name, char **ret_path);

/* A script's interpreter that exec would not find: when the executable file path starts
 * with "#!" and the program that line names does not exist or cannot be executed,
 * returns -ENOENT or -EACCES with that program's path in interp (len bytes, > 0);
 * otherwise (no "#!" line, a program that runs, a file that cannot be read) 0. */
int pmc_script_interpreter_check(const char *path, char *interp, size_t len);
