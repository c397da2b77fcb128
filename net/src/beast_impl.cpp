// Asio, its TLS layer and Beast are compiled once, here (separate compilation keeps every
// other translation unit light).
#include <boost/asio/impl/src.hpp>
#include <boost/asio/ssl/impl/src.hpp>
#include <boost/beast/src.hpp>
