# bash completion for pmcbench (installed as share/bash-completion/completions/pmcbench).
# The subcommands, each one's options and which of them take a value are read from the
# pmcbench being completed (`pmcbench --help`, `pmcbench help CMD`), and event names from
# `pmcbench list --names` (tracepoints from `pmcbench list --names tracepoint`), so the
# completion cannot drift from the program.

# Prints "SHORT LONG ARG" for each option of subcommand $2 of program $1 (SHORT and ARG
# may be "-"), from its help's option lines: "  -o, --output=FILE  ..." or
# "      --format FMT  ...".
_pmcbench_options()
{
	"$1" help "$2" 2>/dev/null | sed -nE \
		's/^ {2,6}(-([A-Za-z0-9]), )?--([a-z][a-z0-9-]*)([= ]([A-Z][A-Za-z0-9|._=]*))?( .*)?$/\2 \3 \5/p' |
		while read -r s l a; do
			if [ -z "$a" ] && [ ${#s} -gt 1 ]; then
				a=$l l=$s s=
			fi
			echo "${s:--} $l ${a:--}"
		done
	echo "h help -"
}

# The values of option --$1 whose argument is named $2, for compgen -W; "@files" for a
# file name, "@events" for an event list, empty when there is nothing to offer.
_pmcbench_values()
{
	case $1 in
	events) echo @events ;;
	format) echo table brief json csv markdown gobench ;;
	color) echo auto always never ;;
	row) echo benchmark metric ;;
	col) echo file ;;
	backend) echo perf valgrind ;;
	valgrind-tool) echo callgrind cachegrind ;;
	runs) echo auto ;;
	*) case $2 in *FILE* | *PATH* | *DIR*) echo @files ;; esac ;;
	esac
}

# The names an event list's item $2 may become: a tracepoint's subsystem once it has a
# colon ("sched:" -> "sched:sched_switch"), else the named events and the tracepoints'
# subsystems, "sched:", to be completed further.
_pmcbench_event_names()
{
	if [[ $2 == *:* ]]; then
		"$1" list --names tracepoint "${2%%:*}:*" 2>/dev/null
	else
		"$1" list --names 2>/dev/null
		"$1" list --names tracepoint 2>/dev/null | sed -n 's/:.*/:/p' | sort -u
	fi
}

_pmcbench_complete_value()
{
	local prog=$1 vals=$2 cur=$3 head
	case $vals in
	@files)
		compopt -o filenames 2>/dev/null
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		;;
	@events)
		# An event list: complete the last item after a comma or a brace, a
		# tracepoint as subsystem: first, then its events.
		head=${cur%"${cur##*[,\{]}"}
		mapfile -t COMPREPLY < <(compgen -P "$head" -W "$(_pmcbench_event_names "$prog" "${cur##*[,\{]}")" -- "${cur##*[,\{]}")
		compopt -o nospace 2>/dev/null
		;;
	*) mapfile -t COMPREPLY < <(compgen -W "$vals" -- "$cur") ;;
	esac
}

# COMP_WORDS with the pieces bash splits at a colon (COMP_WORDBREAKS) glued back,
# "sched" ":" "sched_sw" -> "sched:sched_sw", into words; cword: the index of the word
# being completed in them.
_pmcbench_glue_colons()
{
	local i glue=0
	words=() cword=0
	for ((i = 0; i < ${#COMP_WORDS[@]}; i++)); do
		if [ "${COMP_WORDS[i]}" = : ] && [ ${#words[@]} -gt 0 ]; then
			words[${#words[@]} - 1]+=:
			glue=1
		elif [ $glue = 1 ]; then
			words[${#words[@]} - 1]+=${COMP_WORDS[i]}
			glue=0
		else
			words+=("${COMP_WORDS[i]}")
		fi
		[ "$i" -eq "$COMP_CWORD" ] && cword=$((${#words[@]} - 1))
	done
}

_pmcbench()
{
	local words cword
	_pmcbench_glue_colons
	local prog=${words[0]} cur=${words[cword]}
	COMPREPLY=()
	_pmcbench_words "$prog" "$cur"
	# bash replaces only the text after the word's last colon, where it split it: the
	# completions lose what comes before (as bash-completion's __ltrim_colon_completions).
	if [ "$cur" != "${COMP_WORDS[COMP_CWORD]}" ] && [[ $cur == *:* ]]; then
		COMPREPLY=("${COMPREPLY[@]#"${cur%"${cur##*:}"}"}")
	fi
	return 0
}

# The completions of word cword of words (see _pmcbench) into COMPREPLY.
_pmcbench_words()
{
	local prog=$1 cur=$2
	local prev= cmd opts opt s l a i
	[ "$cword" -gt 0 ] && prev=${words[cword - 1]}
	if [ "$cword" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" --help 2>/dev/null |
			sed -nE 's/^  ([a-z]+) +.*/\1/p') --help --version" -- "$cur")
		return 0
	fi
	cmd=${words[1]}
	# history's actions, from its help as the commands are from the top level's.
	if [ "$cmd" = history ] && [ "$cword" -eq 2 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$("$prog" help history 2>/dev/null |
			sed -nE 's/^  ([a-z]+) +.*/\1/p')" -- "$cur")
		return 0
	fi
	if [ "$cmd" = help ]; then
		[ "$cword" -eq 2 ] && mapfile -t COMPREPLY < <(compgen -W "$("$prog" --help 2>/dev/null |
			sed -nE 's/^  ([a-z]+) +.*/\1/p')" -- "$cur")
		return 0
	fi
	# After "--", the measured command: its name, then files.
	for ((i = 2; i < cword; i++)); do
		if [ "${words[i]}" = -- ]; then
			if [ $((i + 1)) -eq "$cword" ]; then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur" | sort -u)
			else
				_pmcbench_complete_value "$prog" @files "$cur"
			fi
			return 0
		fi
	done
	opts=$(_pmcbench_options "$prog" "$cmd")
	# "--opt=value": bash splits at "=" (COMP_WORDBREAKS), giving "--opt" "=" "value".
	opt=
	if [[ $cur == --*=* ]]; then
		# One word when COMP_WORDBREAKS has no "=": complete the value after it.
		opt=${cur%%=*}
		while read -r s l a; do
			if [ "$opt" = "--$l" ] && [ "$a" != - ]; then
				_pmcbench_complete_value "$prog" "$(_pmcbench_values "$l" "$a")" "${cur#*=}"
				COMPREPLY=("${COMPREPLY[@]/#/$opt=}")
				return 0
			fi
		done <<<"$opts"
		return 0
	elif [ "$cur" = = ]; then
		opt=$prev cur=
	elif [ "$prev" = = ] && [ "$cword" -ge 3 ]; then
		opt=${words[cword - 2]}
	elif [[ $prev == -* ]]; then
		opt=$prev
	fi
	if [ -n "$opt" ]; then
		while read -r s l a; do
			if [ "$opt" = "--$l" ] || [ "$opt" = "-$s" ]; then
				[ "$a" = - ] && break
				_pmcbench_complete_value "$prog" "$(_pmcbench_values "$l" "$a")" "$cur"
				return 0
			fi
		done <<<"$opts"
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(while read -r s l a; do
			[ "$s" != - ] && echo "-$s"
			echo "--$l"
		done <<<"$opts" | sort -u)" -- "$cur")
		return 0
	fi
	case $cmd in
	list) _pmcbench_complete_value "$prog" @events "$cur" ;;
	*) _pmcbench_complete_value "$prog" @files "$cur" ;;
	esac
	return 0
}
complete -F _pmcbench pmcbench
