#!/bin/sh
# Rendered by labgen from the lab "mysql_source". Do not edit: change the lab and render again.
# Creates the lab's users with the names and passwords compose passes in
# from .env. The MySQL image runs it once, on an empty data volume.
set -eu

# replace_all TEXT FROM TO: TEXT with every FROM replaced by TO, literally.
replace_all() {
	_ra_rest=$1
	_ra_out=''
	while :; do
		case $_ra_rest in
		*"$2"*)
			_ra_out=$_ra_out${_ra_rest%%"$2"*}$3
			_ra_rest=${_ra_rest#*"$2"}
			;;
		*) break ;;
		esac
	done
	printf '%s' "$_ra_out$_ra_rest"
}

# sql_subst FILE NAME...: FILE with each ${NAME} replaced by the value of the
# environment variable NAME, escaped by sql_escape (defined by the caller)
# for a single-quoted SQL string literal. Its variables are prefixed: the
# callers' own (file, name, …) must survive it.
sql_subst() {
	_ss_file=$1
	shift
	while IFS= read -r _ss_line || [ -n "$_ss_line" ]; do
		for _ss_name in "$@"; do
			case $_ss_line in
			*"\${$_ss_name}"*)
				_ss_value=''
				eval "_ss_value=\${$_ss_name:-}"
				_ss_line=$(replace_all "$_ss_line" "\${$_ss_name}" "$(sql_escape "$_ss_value")")
				;;
			esac
		done
		printf '%s\n' "$_ss_line"
	done <"$_ss_file"
}

# sql_escape VALUE: VALUE inside a MySQL string literal.
sql_escape() {
	replace_all "$(replace_all "$1" "\\" "\\\\")" "'" "\\'"
}

sql_subst "${LAB:-/lab}/sql/mysql/users.sql" \
	MYSQL_APP_USER MYSQL_APP_PASSWORD \
	MYSQL_CDC_USER MYSQL_CDC_PASSWORD \
	MYSQL_READER_USER MYSQL_READER_PASSWORD |
	MYSQL_PWD="$MYSQL_ROOT_PASSWORD" mysql -uroot
