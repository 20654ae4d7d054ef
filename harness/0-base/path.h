/* Finding executables as execvp does. */
#pragma once

/* Resolves a command name the way execvp would: a name with a '/' is checked as it is,
 * another is searched in PATH (the system's default path when PATH is unset; an empty
 * entry is the current directory). Returns 0 with the malloc'd path of an executable
 * regular file in *ret_path, -ENOENT (not found), -EACCES (found, but not executable)
 * or -ENOMEM. */
int pmc_find_executable(const char *name, char **ret_path);
