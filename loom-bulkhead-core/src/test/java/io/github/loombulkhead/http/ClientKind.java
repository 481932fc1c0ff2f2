package io.github.loombulkhead.http;

import java.net.http.HttpClient;
import java.time.Duration;

import io.github.loombulkhead.Bulkhead;

import org.springframework.http.client.ClientHttpRequestFactory;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.SimpleClientHttpRequestFactory;

/** The three request factories the interceptor must work with, each created the way users would. */
enum ClientKind {

    /** Apache HttpClient 5 with its pool sized from the bulkhead. */
    HTTP_COMPONENTS {
        @Override
        ClientHttpRequestFactory create(Bulkhead bulkhead, Duration readTimeout, Resources resources) {
            var factory = PooledHttpRequestFactories.forBulkhead(bulkhead)
                .connectTimeout(Duration.ofSeconds(2))
                .readTimeout(readTimeout)
                .build();
            resources.add(factory::destroy);
            return factory;
        }
    },

    /** The JDK's {@code java.net.http.HttpClient}. */
    JDK {
        @Override
        ClientHttpRequestFactory create(Bulkhead bulkhead, Duration readTimeout, Resources resources) {
            HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(2))
                .build();
            resources.add(client);
            JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(client);
            factory.setReadTimeout(readTimeout);
            return factory;
        }
    },

    /** Spring's {@code HttpURLConnection} based factory. */
    SIMPLE {
        @Override
        ClientHttpRequestFactory create(Bulkhead bulkhead, Duration readTimeout, Resources resources) {
            SimpleClientHttpRequestFactory factory = new SimpleClientHttpRequestFactory();
            factory.setConnectTimeout(Duration.ofSeconds(2));
            factory.setReadTimeout(readTimeout);
            return factory;
        }
    };

    abstract ClientHttpRequestFactory create(Bulkhead bulkhead, Duration readTimeout, Resources resources);
}
