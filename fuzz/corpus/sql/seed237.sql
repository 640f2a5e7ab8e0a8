-- comment; with semicolon
SELECT 'a;b', `c;d` /* ; */ FROM t;
