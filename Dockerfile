# The explorer in a container: `docker build -t flashviz . && docker run -p 8501:8501 flashviz`
FROM python:3.11-slim
WORKDIR /app
# The served set: requirements.lock's exact versions, the ones CI ran the whole suite on.
COPY requirements.txt requirements.lock ./
RUN pip install --no-cache-dir -r requirements.lock
COPY app.py ./
COPY .streamlit ./.streamlit
COPY explorer ./explorer
COPY flashviz ./flashviz
COPY lessons ./lessons
EXPOSE 8501
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD python -c "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4).read() != b'ok')"
CMD ["streamlit", "run", "app.py", "--server.port=8501", "--server.address=0.0.0.0"]
