-- Nothing but a comment; and another. -- ERROR: Empty job query
/* ; */
